/**
 * Where preflight learns the distribution's configuration: a Rancher provisioning Cluster read from the
 * management cluster (`--rancher-context C --cluster [ns/]NAME`), or a file (`--cluster-file F`).
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { InputError } from '../../errors/index.js';
import { makeKeepAliveApiClient } from '../../kube-http/index.js';
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
    const obj: unknown = await makeKeepAliveApiClient(management, CustomObjectsApi).getNamespacedCustomObject(
      {
        group: 'provisioning.cattle.io',
        version: 'v1',
        namespace,
        plural: 'clusters',
        name,
      },
    );
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

/**
 * Reads and recognises a cluster definition file, or a directory of them (kubeadm: a node's
 * /etc/kubernetes/manifests); a YAML error names the file, line and column.
 */
export function readClusterDefinitionFile(path: string): ClusterDefinition {
  const files = definitionFiles(path).map((file) => {
    try {
      return { path: file, text: readFileSync(file, 'utf8') };
    } catch (error) {
      throw new InputError('UP-PREFLIGHT-CLUSTER-FILE', `cannot read ${file}: ${(error as Error).message}`, {
        location: { file, field: '--cluster-file' },
        hint: 'pass the path of an RKE2 provisioning Cluster YAML, an RKE cluster.yml, or a kubeadm kube-controller-manager manifest (or its manifests directory)',
      });
    }
  });
  // The planners' reader: every document, syntax errors located by line and column, the distribution detected.
  const distro = detectDistro(files);
  for (const file of files) {
    const doc = pick(parseYamlFile(file).values, distro, files.length === 1);
    if (doc !== undefined || files.length === 1) return readClusterDefinition(doc, file.path);
  }
  throw new InputError('UP-PREFLIGHT-CLUSTER-FILE', `${path} holds no ${distro} cluster definition`, {
    location: { file: path, field: '--cluster-file' },
    hint: 'pass a directory holding kube-controller-manager.yaml, or the file itself',
  });
}

/** The file itself, or the YAML/JSON files of a directory (sorted). */
function definitionFiles(path: string): string[] {
  let dir = false;
  try {
    dir = statSync(path).isDirectory();
  } catch {
    return [path]; // reading it reports the missing file with its path
  }
  if (!dir) return [path];
  return readdirSync(path)
    .filter((f) => ['.yaml', '.yml', '.json'].includes(extname(f)) && !f.startsWith('.'))
    .sort()
    .map((f) => join(path, f));
}

/** The document of a multi-document file that holds the definition. */
function pick(values: readonly unknown[], distro: 'rke2' | 'rke' | 'kubeadm', only: boolean): unknown {
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
    case 'kubeadm': {
      const pods = values.filter((v): v is Record<string, unknown> => record(v) && v.kind === 'Pod');
      // In a manifests directory, the kube-controller-manager pod (not the apiserver or the CCM).
      const kcm = pods.find((p) => /"name":"kube-controller-manager"/.test(JSON.stringify(p.spec ?? {})));
      return kcm ?? (only ? (pods[0] ?? values.find(record)) : undefined);
    }
  }
}
