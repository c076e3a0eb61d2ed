/**
 * Reading an RKE (RKE1) cluster definition: the RKE CLI's cluster.yml, or Rancher's form of it (the
 * "Edit as YAML" view, with the RKE options under `rancher_kubernetes_engine_config`).
 */
import { z } from 'zod';
import { InputError } from '../../../errors/index.js';
import { parseKubernetesVersion, type KubernetesVersion } from '../../model/kubernetes-version.js';
import type { ClusterDefinition } from '../distro.js';
import { fieldPath, getPath, isRecord, type JsonRecord } from '../../model/json-value.js';
import { isManagementRkeCluster, managementView } from './rke-management-form.js';
import {
  fieldError,
  parseYamlFile,
  withFileLocation,
  type ParsedYamlFile,
  type SourceFile,
} from '../shared/yaml-source.js';

const RKE_KEYS = [
  'nodes',
  'services',
  'cloud_provider',
  'kubernetes_version',
  'network',
  'ingress',
  'addons',
  'system_images',
];

/** A cluster.yml (no apiVersion/kind, RKE keys at the top), Rancher's form, or Rancher's v3 Cluster object. */
export function isRkeDocument(value: unknown): boolean {
  if (isManagementRkeCluster(value)) return true;
  if (!isRecord(value) || 'apiVersion' in value || 'kind' in value) return false;
  if (isRecord(value.rancher_kubernetes_engine_config)) return true;
  return (
    RKE_KEYS.some((k) => Object.hasOwn(value, k)) &&
    (Array.isArray(value.nodes) || isRecord(value.services) || isRecord(value.cloud_provider))
  );
}

const extraArgsSchema = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  .nullable()
  .optional();
const serviceSchema = z.looseObject({ extra_args: extraArgsSchema }).nullable().optional();
const rkeSchema = z.looseObject({
  kubernetes_version: z.string().min(1).optional(),
  cluster_name: z.string().optional(),
  nodes: z
    .array(
      z.looseObject({
        address: z.string().optional(),
        role: z.array(z.string()).nullable().optional(),
        hostname_override: z.string().nullable().optional(),
      }),
    )
    .nullable()
    .optional(),
  services: z
    .looseObject({ 'kube-controller': serviceSchema, 'kube-api': serviceSchema, kubelet: serviceSchema })
    .nullable()
    .optional(),
  cloud_provider: z
    .looseObject({ name: z.string().optional(), useInstanceMetadataHostname: z.boolean().optional() })
    .nullable()
    .optional(),
  addons: z.string().nullable().optional(),
  addons_include: z.array(z.string()).nullable().optional(),
});

/**
 * `cluster-yml`: the RKE CLI's file. `rancher`: Rancher's "Edit as YAML" form, saved by a person.
 * `management`: Rancher's clusters.management.cattle.io object, edited in place by uproot.
 */
export type RkeForm = 'cluster-yml' | 'rancher' | 'management';

export interface RkeDefinition extends ClusterDefinition {
  readonly distro: 'rke';
  readonly file: SourceFile;
  readonly parsed: ParsedYamlFile;
  readonly docIndex: number;
  readonly form: RkeForm;
  /** The whole document (the RKE options are at `rkePath` inside it); the management form's yaml view. */
  readonly document: JsonRecord;
  readonly rkePath: readonly string[];
  /** The management form: the v3 Cluster as read (the steps edit it through `document`). */
  readonly live?: JsonRecord;
}

export function readRkeCluster(file: SourceFile): RkeDefinition {
  const parsed = parseYamlFile(file);
  const indexes = parsed.values.map((v, i) => (isRkeDocument(v) ? i : -1)).filter((i) => i >= 0);
  const docIndex = indexes[0];
  if (docIndex === undefined) {
    throw new InputError('UP-PLAN-RKE-NO-CLUSTER', `${file.path} is not an RKE cluster.yml`, {
      location: { file: file.path, line: 1 },
      hint: 'give the cluster.yml used with `rke up`, or the cluster YAML from Rancher (with rancher_kubernetes_engine_config)',
    });
  }
  if (indexes.length > 1) {
    throw new InputError('UP-PLAN-RKE-MANY', `${file.path} holds ${indexes.length} RKE cluster definitions`, {
      location: { file: file.path, line: 1, value: indexes.length },
      hint: 'plan one cluster at a time',
    });
  }
  const raw = parsed.values[docIndex] as JsonRecord;
  const live: JsonRecord | undefined = isManagementRkeCluster(raw) ? raw : undefined;
  // The management object is read through its yaml view; locations then fall back to the document.
  const document = live ? managementView(live) : raw;
  const form: RkeForm = live
    ? 'management'
    : isRecord(document.rancher_kubernetes_engine_config)
      ? 'rancher'
      : 'cluster-yml';
  const rkePath = form === 'cluster-yml' ? [] : ['rancher_kubernetes_engine_config'];
  const rke = getPath(document, rkePath);
  const result = rkeSchema.safeParse(rke);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const path = [...rkePath, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
    const value = getPath(document, path);
    throw fieldError(
      'UP-PLAN-RKE-FIELD',
      `${file.path}: ${fieldPath(path)} ${value === undefined ? 'is missing' : 'is invalid'}: ${issue.message}`,
      parsed,
      docIndex,
      path,
      { value, hint: hintFor(path) },
    );
  }
  const versionPath = [...rkePath, 'kubernetes_version'];
  const rawVersion = getPath(document, versionPath);
  if (typeof rawVersion !== 'string') {
    throw fieldError(
      'UP-PLAN-RKE-VERSION',
      `${file.path}: ${fieldPath(versionPath)} is not set`,
      parsed,
      docIndex,
      rkePath,
      {
        hint: 'set kubernetes_version to the RKE release the cluster runs (e.g. v1.26.15-rancher1-1): uproot picks the CCM release from it',
      },
    );
  }
  const kubernetesVersion: KubernetesVersion = withFileLocation(parsed, docIndex, versionPath, () =>
    parseKubernetesVersion(rawVersion, fieldPath(versionPath)),
  );
  const name =
    form === 'cluster-yml'
      ? String((rke as JsonRecord).cluster_name ?? 'local')
      : String(document.name ?? getPath(document, ['metadata', 'name']) ?? 'rancher-cluster');
  return {
    distro: 'rke',
    name,
    source: file.path,
    kubernetesVersion,
    file,
    parsed,
    docIndex,
    form,
    document,
    rkePath,
    ...(live ? { live } : {}),
  };
}

function hintFor(path: readonly (string | number)[]): string {
  const last = String(path[path.length - 1] ?? '');
  if (path.includes('extra_args'))
    return 'extra_args is a map of flag names to string values, e.g. enable-leader-migration: "true"';
  if (last === 'nodes' || path.includes('nodes'))
    return 'nodes is a list of {address, role: [controlplane|etcd|worker], hostname_override}';
  if (path.includes('cloud_provider'))
    return 'cloud_provider has a name (aws, external-aws) and optionally useInstanceMetadataHostname (true/false)';
  return "fix the field so it matches RKE's cluster.yml reference";
}
