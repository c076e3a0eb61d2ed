import { parseAllDocuments } from 'yaml';
import { isRecord, metaOf, type KubeObject } from '../kube/kube-types.js';
import { resourceForKind, type TwinKube } from '../kube/twin-kube.js';

/**
 * Applies sets of manifests the way an addon deployer does (RKE2's deploy controller for
 * `additionalManifest`, Helm for a release): each object is created or replaced, and objects that were in
 * the previous set but not in the new one are deleted (pruned). Sets are keyed by their owner.
 */

export interface ApplyResult {
  readonly applied: readonly string[];
  readonly pruned: readonly string[];
  readonly errors: readonly string[];
}

interface AppliedRef {
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly name: string;
}

function refKey(r: AppliedRef): string {
  return `${r.resource}|${r.namespace ?? ''}|${r.name}`;
}

/** Parses a multi-document YAML string into objects; a document that fails to parse is reported, not thrown. */
export function parseManifests(text: string): { objects: KubeObject[]; errors: string[] } {
  const objects: KubeObject[] = [];
  const errors: string[] = [];
  for (const doc of parseAllDocuments(text)) {
    const error = doc.errors[0];
    if (error) {
      errors.push(error.message.split('\n')[0] ?? error.message);
      continue;
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isRecord(value)) {
      errors.push('a manifest document is not an object');
      continue;
    }
    if (value.kind === 'List' && Array.isArray(value.items)) {
      for (const item of value.items) if (isRecord(item)) objects.push(item as KubeObject);
    } else objects.push(value as KubeObject);
  }
  return { objects, errors };
}

export class ManifestApplier {
  private readonly sets = new Map<string, Map<string, AppliedRef>>();

  constructor(private readonly kube: TwinKube) {}

  apply(owner: string, objects: readonly KubeObject[], defaultNamespace = 'default'): ApplyResult {
    const previous = this.sets.get(owner) ?? new Map<string, AppliedRef>();
    const next = new Map<string, AppliedRef>();
    const applied: string[] = [];
    const errors: string[] = [];
    for (const obj of objects) {
      const kind = obj.kind ?? '';
      const resource = resourceForKind(this.kube.store, obj.apiVersion ?? '', kind);
      const name = metaOf(obj).name ?? '';
      if (!resource) {
        errors.push(`no matches for kind "${kind}" in version "${obj.apiVersion ?? ''}"`);
        continue;
      }
      const namespaced = this.kube.store.resolve(resource).namespaced;
      const namespace = namespaced ? (metaOf(obj).namespace ?? defaultNamespace) : undefined;
      const withNs: KubeObject = namespaced ? { ...obj, metadata: { ...metaOf(obj), namespace } } : obj;
      try {
        this.kube.put(resource, withNs);
        const ref = { resource, namespace, name };
        next.set(refKey(ref), ref);
        applied.push(`${kind.toLowerCase()}/${name}`);
      } catch (error) {
        errors.push(`${kind}/${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const pruned: string[] = [];
    for (const [key, ref] of previous) {
      if (next.has(key)) continue;
      if (this.kube.delete(ref.resource, ref.namespace, ref.name)) pruned.push(`${ref.resource}/${ref.name}`);
    }
    this.sets.set(owner, next);
    return { applied, pruned, errors };
  }

  remove(owner: string): string[] {
    return this.apply(owner, []).pruned as string[];
  }
}
