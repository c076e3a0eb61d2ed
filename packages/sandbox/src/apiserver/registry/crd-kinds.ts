import { isJsonObject, type JsonObject, type KubeObject } from '../kube-object.js';
import { customResourcePrinter, type PrinterColumnSpec } from '../tables/custom-columns.js';
import type { ResourceRegistry } from './resource-registry.js';
import { defineResource, type ResourceType, type Subresource } from './resource-type.js';

interface CrdNames {
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function namesOf(spec: JsonObject): CrdNames {
  const names = isJsonObject(spec.names) ? spec.names : {};
  const kind = typeof names.kind === 'string' ? names.kind : '';
  return {
    plural: typeof names.plural === 'string' ? names.plural : '',
    singular: typeof names.singular === 'string' && names.singular ? names.singular : kind.toLowerCase(),
    kind,
    listKind: typeof names.listKind === 'string' && names.listKind ? names.listKind : `${kind}List`,
    shortNames: strings(names.shortNames),
    categories: strings(names.categories),
  };
}

function versionsOf(spec: JsonObject): JsonObject[] {
  return Array.isArray(spec.versions) ? spec.versions.filter(isJsonObject) : [];
}

/** Field errors of a CRD as the apiextensions validation reports them (the subset that matters here). */
export function crdProblems(crd: KubeObject): { field: string; message: string; type?: string }[] {
  const spec = isJsonObject(crd.spec) ? crd.spec : {};
  const names = namesOf(spec);
  const group = typeof spec.group === 'string' ? spec.group : '';
  const problems: { field: string; message: string; type?: string }[] = [];
  if (!group) problems.push({ field: 'spec.group', message: 'Required value', type: 'FieldValueRequired' });
  if (!names.plural)
    problems.push({ field: 'spec.names.plural', message: 'Required value', type: 'FieldValueRequired' });
  if (!names.kind)
    problems.push({ field: 'spec.names.kind', message: 'Required value', type: 'FieldValueRequired' });
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    problems.push({
      field: 'spec.scope',
      message: `Unsupported value: "${String(spec.scope)}": supported values: "Cluster", "Namespaced"`,
      type: 'FieldValueNotSupported',
    });
  }
  const expected = `${names.plural}.${group}`;
  if (names.plural && group && crd.metadata?.name !== expected) {
    problems.push({
      field: 'metadata.name',
      message: `Invalid value: "${crd.metadata?.name ?? ''}": must be spec.names.plural+"."+spec.group`,
    });
  }
  const versions = versionsOf(spec);
  if (versions.length === 0)
    problems.push({
      field: 'spec.versions',
      message: 'Invalid value: null: must have exactly one version marked as storage version',
    });
  else if (versions.filter((v) => v.storage === true).length !== 1) {
    problems.push({
      field: 'spec.versions',
      message: `Invalid value: ${JSON.stringify(versions)}: must have exactly one version marked as storage version`,
    });
  }
  return problems;
}

/** The status a real API server converges to once names are accepted: Established, NamesAccepted. */
export function crdStatus(crd: KubeObject, now: string): JsonObject {
  const spec = isJsonObject(crd.spec) ? crd.spec : {};
  const names = namesOf(spec);
  const storage = versionsOf(spec).find((v) => v.storage === true);
  const condition = (type: string, reason: string, message: string): JsonObject => ({
    type,
    status: 'True',
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    conditions: [
      condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    acceptedNames: {
      plural: names.plural,
      singular: names.singular,
      kind: names.kind,
      listKind: names.listKind,
      ...(names.shortNames.length ? { shortNames: names.shortNames } : {}),
      ...(names.categories.length ? { categories: names.categories } : {}),
    },
    storedVersions: storage ? [storage.name] : [],
  };
}

/** One ResourceType per served version of a CRD. */
export function crdResourceTypes(crd: KubeObject): ResourceType[] {
  const spec = isJsonObject(crd.spec) ? crd.spec : {};
  const names = namesOf(spec);
  const group = typeof spec.group === 'string' ? spec.group : '';
  return versionsOf(spec)
    .filter((v) => v.served !== false && typeof v.name === 'string')
    .map((v) => {
      const sub = isJsonObject(v.subresources) ? v.subresources : {};
      const subresources: Subresource[] = [];
      if (isJsonObject(sub.status)) subresources.push('status');
      if (isJsonObject(sub.scale)) subresources.push('scale');
      const columns = Array.isArray(v.additionalPrinterColumns)
        ? (v.additionalPrinterColumns.filter(isJsonObject) as unknown as PrinterColumnSpec[])
        : undefined;
      return defineResource({
        group,
        version: v.name as string,
        resource: names.plural,
        kind: names.kind,
        listKind: names.listKind,
        singular: names.singular,
        namespaced: spec.scope === 'Namespaced',
        shortNames: names.shortNames,
        categories: names.categories,
        subresources,
        tracksGeneration: true,
        custom: true,
        printer: customResourcePrinter(columns),
      });
    });
}

/** Brings the registry in line with a CRD change: versions no longer served go, served ones are (re)added. */
export function syncCrdRegistration(
  registry: ResourceRegistry,
  prev: KubeObject | undefined,
  next: KubeObject | undefined,
): void {
  const before = prev ? crdResourceTypes(prev) : [];
  const after = next ? crdResourceTypes(next) : [];
  for (const t of before) {
    if (!after.some((n) => n.version === t.version && n.resource === t.resource && n.group === t.group))
      registry.remove(t);
  }
  for (const t of after) registry.add(t);
}
