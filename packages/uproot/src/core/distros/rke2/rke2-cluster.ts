/**
 * Reading a Rancher provisioning.cattle.io/v1 Cluster (RKE2) from a file: as `kubectl get -o yaml` prints it
 * (possibly a List), or as a person writes it, possibly among other documents. Validation covers the fields
 * the plan reads or edits, each error located at its line.
 */
import { z } from 'zod';
import { InputError } from '../../../errors/index.js';
import { parseKubernetesVersion, type KubernetesVersion } from '../../model/kubernetes-version.js';
import type { ClusterDefinition } from '../distro.js';
import { fieldPath, getPath, isRecord, type JsonRecord } from '../../model/json-value.js';
import { manifestDocuments, findManifest } from '../shared/manifest-stream.js';
import {
  fieldError,
  parseYamlFile,
  withFileLocation,
  type ParsedYamlFile,
  type SourceFile,
} from '../shared/yaml-source.js';

export const RKE2_ARG_KEYS = [
  'kubelet-arg',
  'kube-controller-manager-arg',
  'kube-apiserver-arg',
  'kube-scheduler-arg',
  'kube-proxy-arg',
  'cloud-controller-manager-arg',
  'etcd-arg',
] as const;

const argValue = z.union([z.string(), z.array(z.string())]);
const configSchema = z
  .looseObject(Object.fromEntries(RKE2_ARG_KEYS.map((k) => [k, argValue.nullable().optional()])))
  .nullable()
  .optional();
const selectorSchema = z
  .looseObject({
    matchLabels: z.record(z.string(), z.string()).nullable().optional(),
    matchExpressions: z
      .array(
        z.looseObject({
          key: z.string(),
          operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
          values: z.array(z.string()).nullable().optional(),
        }),
      )
      .nullable()
      .optional(),
  })
  .nullable()
  .optional();

const clusterSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string().min(1), namespace: z.string().optional() }),
  spec: z.looseObject({
    kubernetesVersion: z.string().min(1),
    rkeConfig: z.looseObject({
      additionalManifest: z.string().nullable().optional(),
      machineGlobalConfig: configSchema,
      machineSelectorConfig: z
        .array(z.looseObject({ config: configSchema, machineLabelSelector: selectorSchema }))
        .nullable()
        .optional(),
      machinePools: z
        .array(
          z.looseObject({
            name: z.string().optional(),
            controlPlaneRole: z.boolean().nullable().optional(),
            etcdRole: z.boolean().nullable().optional(),
            workerRole: z.boolean().nullable().optional(),
            labels: z.record(z.string(), z.string()).nullable().optional(),
          }),
        )
        .nullable()
        .optional(),
    }),
  }),
});

export interface Rke2Definition extends ClusterDefinition {
  readonly distro: 'rke2';
  readonly file: SourceFile;
  readonly parsed: ParsedYamlFile;
  /** Which document holds the Cluster, and where in it (a List's items[i]). */
  readonly docIndex: number;
  readonly pathInDoc: readonly (string | number)[];
  readonly cluster: JsonRecord;
  readonly namespace: string;
}

/** True for a provisioning Cluster (or a List holding one). */
export function isProvisioningCluster(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.apiVersion === 'string' &&
    value.apiVersion.startsWith('provisioning.cattle.io/') &&
    value.kind === 'Cluster'
  );
}

/** Every (document, path) where a provisioning Cluster sits in a file. */
export function findClusters(values: readonly unknown[]): { docIndex: number; path: (string | number)[] }[] {
  const found: { docIndex: number; path: (string | number)[] }[] = [];
  values.forEach((value, docIndex) => {
    if (isProvisioningCluster(value)) found.push({ docIndex, path: [] });
    else if (isRecord(value) && value.kind === 'List' && Array.isArray(value.items)) {
      value.items.forEach((item, i) => {
        if (isProvisioningCluster(item)) found.push({ docIndex, path: ['items', i] });
      });
    }
  });
  return found;
}

export function readRke2Cluster(file: SourceFile): Rke2Definition {
  const parsed = parseYamlFile(file);
  const found = findClusters(parsed.values);
  const where = found[0];
  if (!where) {
    throw new InputError('UP-PLAN-RKE2-NO-CLUSTER', `${file.path} has no provisioning.cattle.io/v1 Cluster`, {
      location: { file: file.path, line: 1 },
      hint: 'give the Rancher cluster object, e.g. kubectl get clusters.provisioning.cattle.io -n fleet-default NAME -o yaml',
    });
  }
  if (found.length > 1) {
    throw new InputError(
      'UP-PLAN-RKE2-MANY-CLUSTERS',
      `${file.path} holds ${found.length} provisioning Clusters`,
      {
        location: { file: file.path, line: 1, value: found.length },
        hint: 'plan one cluster at a time: give a file with a single Cluster',
      },
    );
  }
  const cluster = getPath(parsed.values[where.docIndex], where.path) as JsonRecord;
  const result = clusterSchema.safeParse(cluster);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const path = [...where.path, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
    const value = getPath(parsed.values[where.docIndex], path);
    throw fieldError(
      'UP-PLAN-RKE2-FIELD',
      `${file.path}: ${fieldPath(path) || 'the Cluster'} ${describeIssue(issue.message, value)}`,
      parsed,
      where.docIndex,
      path,
      { value, hint: hintFor(issue.path) },
    );
  }
  const spec = cluster.spec as JsonRecord;
  const versionPath = [...where.path, 'spec', 'kubernetesVersion'];
  const kubernetesVersion: KubernetesVersion = withFileLocation(parsed, where.docIndex, versionPath, () =>
    parseKubernetesVersion(String(spec.kubernetesVersion), 'spec.kubernetesVersion'),
  );
  if (/k3s/i.test(String(spec.kubernetesVersion))) {
    throw fieldError(
      'UP-PLAN-RKE2-K3S',
      `${file.path}: this is a K3s cluster`,
      parsed,
      where.docIndex,
      versionPath,
      {
        value: spec.kubernetesVersion,
        hint: 'uproot plans RKE2, RKE and kubeadm clusters; K3s is not supported',
      },
    );
  }
  checkAdditionalManifest(parsed, where.docIndex, where.path, cluster);
  const metadata = cluster.metadata as JsonRecord;
  return {
    distro: 'rke2',
    name: String(metadata.name),
    source: file.path,
    kubernetesVersion,
    file,
    parsed,
    docIndex: where.docIndex,
    pathInDoc: where.path,
    cluster,
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : 'fleet-default',
  };
}

/** additionalManifest is YAML inside a string: it must parse, and a CCM HelmChart in it must have readable values. */
function checkAdditionalManifest(
  parsed: ParsedYamlFile,
  docIndex: number,
  prefix: readonly (string | number)[],
  cluster: JsonRecord,
): void {
  const path = [...prefix, 'spec', 'rkeConfig', 'additionalManifest'];
  const text = getPath(cluster, ['spec', 'rkeConfig', 'additionalManifest']);
  if (typeof text !== 'string') return;
  let docs: unknown[];
  try {
    docs = manifestDocuments(text);
  } catch (error) {
    throw fieldError(
      'UP-PLAN-RKE2-MANIFEST',
      `${parsed.file.path}: spec.rkeConfig.additionalManifest is not valid YAML (${error instanceof Error ? error.message : String(error)})`,
      parsed,
      docIndex,
      path,
      { hint: 'fix the YAML inside additionalManifest (it is applied to the cluster as is)' },
    );
  }
  const index = findManifest(docs, { kind: 'HelmChart', name: 'aws-cloud-controller-manager' });
  const values = getPath(docs[index], ['spec', 'valuesContent']);
  if (index >= 0 && values !== undefined && values !== null) {
    let ok = typeof values === 'string';
    if (ok) {
      try {
        const [doc] = manifestDocuments(values as string);
        ok = doc === undefined || doc === null || isRecord(doc);
      } catch {
        ok = false;
      }
    }
    if (!ok) {
      throw fieldError(
        'UP-PLAN-RKE2-MANIFEST',
        `${parsed.file.path}: the aws-cloud-controller-manager HelmChart in additionalManifest has a valuesContent that is not a YAML map`,
        parsed,
        docIndex,
        path,
        { hint: 'fix spec.valuesContent of that HelmChart (Helm values as YAML)' },
      );
    }
  }
}

function describeIssue(message: string, value: unknown): string {
  if (value === undefined) return `is missing (${message})`;
  return `is invalid: ${message}`;
}

function hintFor(path: readonly PropertyKey[]): string {
  const last = String(path[path.length - 1] ?? '');
  if (last === 'kubernetesVersion')
    return "set spec.kubernetesVersion to the cluster's RKE2 release, e.g. v1.26.15+rke2r1";
  if (last === 'rkeConfig')
    return 'spec.rkeConfig must be a map: is this an RKE2 cluster provisioned by Rancher?';
  if (last.endsWith('-arg'))
    return 'write RKE2 arguments as a list of strings, e.g. ["enable-leader-migration"]';
  if (path.includes('machineLabelSelector'))
    return 'a machineLabelSelector has matchLabels (a map) and/or matchExpressions (key, operator In/NotIn/Exists/DoesNotExist, values)';
  return 'fix the field so it matches the provisioning.cattle.io/v1 Cluster schema';
}
