/**
 * Where preflight learns the distribution's configuration: a Rancher provisioning Cluster read from the
 * management cluster (`--rancher-context C --cluster [ns/]NAME`), or a file (`--cluster-file F`).
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { InputError } from '../../errors/index.js';
import { readClusterDefinition, type ClusterDefinition, type Readable } from '../../core/checks/index.js';
import { detectDistro } from '../../core/distros/detect.js';
import { findClusters } from '../../core/distros/rke2/index.js';
import { isRkeDocument } from '../../core/distros/rke/index.js';
import { parseYamlFile } from '../../core/distros/shared/yaml-source.js';
import type { CallCounter } from './request-counter.js';
import { apiFailure, fatalError, isFatal, skipReason } from './kube-read-error.js';

/** `fleet-default/prod` or `prod` (namespace fleet-default). */
export function parseClusterRef(ref: string): { namespace: string; name: string } {
  const parts = ref.split('/');
  if (parts.length > 2 || parts.some((p) => !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(p))) {
    throw new InputError('UP-PREFLIGHT-CLUSTER-REF', `"${ref}" is not a cluster name`, {
      location: { field: '--cluster', value: ref },
      hint: 'pass NAME or NAMESPACE/NAME of the provisioning.cattle.io Cluster (namespace fleet-default by default)',
    });
  }
  return parts.length === 2
    ? { namespace: parts[0]!, name: parts[1]! }
    : { namespace: 'fleet-default', name: parts[0]! };
}

export async function readRancherCluster(
  management: KubeConfig,
  ref: string,
  counter?: CallCounter,
): Promise<Readable<ClusterDefinition>> {
  const { namespace, name } = parseClusterRef(ref);
  const source = `Rancher cluster ${namespace}/${name}`;
  try {
    counter?.count('get clusters.provisioning.cattle.io (management)');
    const obj: unknown = await management.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'provisioning.cattle.io',
      version: 'v1',
      namespace,
      plural: 'clusters',
      name,
    });
    return { state: 'ok', value: readClusterDefinition(obj, source) };
  } catch (error) {
    if (error instanceof InputError) throw error;
    if (isFatal(error)) throw fatalError(error, `reading ${source} from the management cluster`);
    if (apiFailure(error).code === 404) {
      throw new InputError('UP-PREFLIGHT-RANCHER-CLUSTER', `${source} does not exist`, {
        location: { field: '--cluster', value: ref },
        hint: 'list them with: kubectl --context <rancher-context> get clusters.provisioning.cattle.io -A',
      });
    }
    return {
      state: 'unavailable',
      reason: skipReason(error, 'get', `clusters.provisioning.cattle.io ${namespace}/${name}`),
    };
  }
}

/** Reads and recognises a cluster definition file; a YAML error names the file, line and column. */
export function readClusterDefinitionFile(path: string): ClusterDefinition {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError('UP-PREFLIGHT-CLUSTER-FILE', `cannot read ${path}: ${(error as Error).message}`, {
      location: { file: path, field: '--cluster-file' },
      hint: 'pass the path of an RKE2 provisioning Cluster YAML, an RKE cluster.yml or a kubeadm kube-controller-manager manifest',
    });
  }
  // The planners' reader: every document, syntax errors located by line and column, the distribution detected.
  const file = { path, text };
  const { values } = parseYamlFile(file);
  const distro = detectDistro([file]);
  return readClusterDefinition(pick(values, distro), path);
}

/** The document of a multi-document file that holds the definition. */
function pick(values: readonly unknown[], distro: 'rke2' | 'rke' | 'kubeadm'): unknown {
  const record = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  switch (distro) {
    case 'rke2': {
      const at = findClusters(values)[0];
      let doc: unknown = at ? values[at.docIndex] : undefined;
      for (const key of at?.path ?? []) doc = (doc as Record<string | number, unknown>)[key];
      return doc;
    }
    case 'rke':
      return values.find(isRkeDocument);
    case 'kubeadm':
      return values.find((v) => record(v) && v.kind === 'Pod') ?? values.find(record);
  }
}
