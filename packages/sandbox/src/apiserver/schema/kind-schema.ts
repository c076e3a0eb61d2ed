import * as models from '@kubernetes/client-node';
import type { ResourceType } from '../registry/resource-type.js';

/**
 * What fields each built-in kind has, read from @kubernetes/client-node's generated models (their
 * `attributeTypeMap`s are generated from the upstream OpenAPI document, so they name every field of every
 * type the real server decodes into). Custom resources have no schema here: they are treated as open
 * (`x-kubernetes-preserve-unknown-fields`), as the twin's CRDs declare.
 */
export type FieldType =
  | { readonly kind: 'struct'; readonly name: string }
  | { readonly kind: 'map'; readonly value: FieldType }
  | { readonly kind: 'list'; readonly item: FieldType }
  /** A scalar, or a value of any shape (`any`, `object`, IntOrString, RawExtension). */
  | { readonly kind: 'leaf' };

interface Attribute {
  readonly baseName: string;
  readonly type: string;
}

type ModelClass = { readonly attributeTypeMap?: readonly Attribute[] };
const registry = models as unknown as Readonly<Record<string, ModelClass | undefined>>;

const LEAF: FieldType = { kind: 'leaf' };
const parsed = new Map<string, FieldType>();
const structs = new Map<string, ReadonlyMap<string, FieldType> | null>();

/** Parses a generated type expression: `V1Pod`, `Array<V1Container>`, `{ [key: string]: string; }`. */
export function parseType(expression: string): FieldType {
  let t = parsed.get(expression);
  if (t) return t;
  const list = /^Array<(.+)>$/.exec(expression);
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(expression);
  if (list) t = { kind: 'list', item: parseType(list[1]!) };
  else if (map) t = { kind: 'map', value: parseType(map[1]!) };
  else if (registry[expression]?.attributeTypeMap) t = { kind: 'struct', name: expression };
  else t = LEAF;
  parsed.set(expression, t);
  return t;
}

/** The fields of a struct by their JSON names, or null when the model is unknown. */
export function structFields(name: string): ReadonlyMap<string, FieldType> | null {
  let fields = structs.get(name);
  if (fields !== undefined) return fields;
  const attrs = registry[name]?.attributeTypeMap;
  fields = attrs ? new Map(attrs.map((a) => [a.baseName, parseType(a.type)])) : null;
  structs.set(name, fields);
  return fields;
}

/** Model class names that do not follow `<Version><Kind>`. */
const SPECIAL: Readonly<Record<string, string>> = {
  '/v1/Event': 'CoreV1Event',
  'events.k8s.io/v1/Event': 'EventsV1Event',
};

/** The schema of a served kind, or undefined when the twin does not know it (custom resources). */
export function kindSchema(rt: ResourceType): FieldType | undefined {
  if (rt.custom) return undefined;
  const special = SPECIAL[`${rt.group}/${rt.version}/${rt.kind}`];
  const name = special ?? `${rt.version.charAt(0).toUpperCase()}${rt.version.slice(1)}${rt.kind}`;
  return registry[name]?.attributeTypeMap ? { kind: 'struct', name } : undefined;
}
