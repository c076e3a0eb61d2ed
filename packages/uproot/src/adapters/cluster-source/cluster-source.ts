/**
 * The one reader of a cluster definition, wherever it is: a file or a directory of them (`--cluster-file`,
 * kubeadm's manifests directory), a built-in example (`--example`), or the live Rancher provisioning Cluster
 * in the management cluster (`--rancher-context C --cluster [ns/]NAME`). Every command reads through here, so
 * a directory is filtered one way and each cause of failure has one error code.
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { InputError } from '../../errors/index.js';
import { parseClusterRef, type RancherClusterRef } from '../../core/distros/rke2/cluster-ref.js';
import type { SourceFile } from '../../core/distros/shared/yaml-source.js';
import type { ObjectStore } from '../../engine/ports.js';
import { makeKeepAliveApiClient } from '../../election/kube-http/index.js';
import { readClusterDefinition } from '../../core/distros/preflight-definition.js';
import type { ClusterDefinition } from '../../core/model/cluster-definition.js';
import type { Readable } from '../../core/model/readable.js';
import { detectDistro } from '../../core/distros/detect.js';
import { findClusters } from '../../core/distros/rke2/index.js';
import { isRkeDocument } from '../../core/distros/rke/index.js';
import { parseYamlFile } from '../../core/distros/shared/yaml-source.js';
import type { CallCounter } from '../kube/request-counter.js';
import { apiFailure, fatalError, isFatal, skipReason } from '../kube/kube-read-error.js';

export async function readRancherCluster(
  management: KubeConfig,
  ref: string,
  counter?: CallCounter,
): Promise<Readable<ClusterDefinition>> {
  const { namespace, name } = parseClusterRef(ref);
  const source = `Rancher cluster ${namespace}/${name}`;
  try {
    counter?.count('get clusters.provisioning.cattle.io (management)');
    const api = makeKeepAliveApiClient(management, CustomObjectsApi);
    const obj: unknown = await api
      .getNamespacedCustomObject({
        group: 'provisioning.cattle.io',
        version: 'v1',
        namespace,
        plural: 'clusters',
        name,
      })
      .catch((error: unknown) => {
        if (apiFailure(error).code === 404) return undefined;
        throw error;
      });
    if (obj !== undefined && !isLegacyWrapper(obj))
      return { state: 'ok', value: readClusterDefinition(obj, source) };
    counter?.count('get clusters.management.cattle.io (management)');
    const legacyName = legacyClusterName(obj, name);
    const legacy: unknown = await api.getClusterCustomObject({
      group: 'management.cattle.io',
      version: 'v3',
      plural: 'clusters',
      name: legacyName,
    });
    return { state: 'ok', value: readClusterDefinition(legacy, `Rancher cluster ${legacyName}`) };
  } catch (error) {
    if (error instanceof InputError) throw error;
    if (isFatal(error)) throw fatalError(error, `reading ${source} from the management cluster`);
    if (apiFailure(error).code === 404) throw clusterNotFound({ namespace, name }, ref);
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
  const files = readClusterFiles([path]);
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

// --- Files and directories ----------------------------------------------------------------------------------

/** What a directory contributes: its YAML and JSON files (not hidden ones), in name order. */
const DEFINITION_FILE = /^[^.].*\.(ya?ml|json)$/i;

/**
 * Reads `--cluster-file` values: each a file, or a directory whose definition files are read in name order.
 * Paths are shown as given (a directory's files as DIR/name) and read relative to `cwd`.
 */
export function readClusterFiles(given: readonly string[], cwd = process.cwd()): SourceFile[] {
  return given.flatMap((shown) => {
    const path = resolve(cwd, shown);
    if (!isDirectory(path)) return [{ path: shown, text: readDefinitionText(path, shown) }];
    const entries = readdirSync(path)
      .filter((f) => DEFINITION_FILE.test(f))
      .sort();
    if (entries.length === 0) {
      throw new InputError('UP-CLUSTER-DIR-EMPTY', `directory ${shown} holds no .yaml, .yml or .json files`, {
        location: { file: shown, field: '--cluster-file' },
        hint: 'give the manifests directory (e.g. /etc/kubernetes/manifests copied from a control-plane node), or the file itself',
      });
    }
    return entries.map((f) => ({
      path: join(shown, f),
      text: readDefinitionText(join(path, f), join(shown, f)),
    }));
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // reading it reports the missing file with its path
  }
}

function readDefinitionText(path: string, shown: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(
      'UP-CLUSTER-FILE-UNREADABLE',
      `cannot read ${shown}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      {
        location: { file: shown, field: '--cluster-file' },
        hint: 'check the path given to --cluster-file: an RKE2 provisioning Cluster YAML, an RKE cluster.yml, or a kubeadm kube-controller-manager manifest (or its manifests directory)',
        cause: error,
      },
    );
  }
}

// --- Built-in examples --------------------------------------------------------------------------------------

/** The examples shipped with the package (resolved from this module, not the working directory). */
export const EXAMPLES: Readonly<Record<string, string>> = {
  rke2: 'rke2-cluster.yaml',
  rke: 'rke-cluster.yml',
  'rancher-rke': 'rancher-rke-cluster.yaml',
  kubeadm: 'kube-controller-manager.yaml',
};

export function examplesDir(): string {
  return fileURLToPath(new URL('../../../examples/', import.meta.url));
}

/** A built-in example, shown as examples/<file>. */
export function readExample(name: string, field = '--example'): SourceFile {
  const file = Object.hasOwn(EXAMPLES, name) ? EXAMPLES[name] : undefined;
  if (!file) {
    throw new InputError('UP-PLAN-EXAMPLE', `there is no built-in example "${name}"`, {
      location: { field, value: name },
      hint: `use one of: ${Object.keys(EXAMPLES).join(', ')}`,
    });
  }
  return {
    path: `examples/${file}`,
    text: readDefinitionText(join(examplesDir(), file), `examples/${file}`),
  };
}

// --- The live Rancher Cluster -------------------------------------------------------------------------------

/**
 * The provisioning Cluster as migrate plans from it: read from the management cluster, without its status
 * and managedFields, as the YAML text a planner reads (named clusters.provisioning.cattle.io/NS/NAME).
 */
export async function readRancherClusterSource(management: ObjectStore, ref: string): Promise<SourceFile> {
  const at = parseClusterRef(ref);
  const live = await management.get({ apiVersion: 'provisioning.cattle.io/v1', kind: 'Cluster', ...at });
  if (live && !isLegacyWrapper(live)) {
    return { path: `clusters.provisioning.cattle.io/${at.namespace}/${at.name}`, text: definitionText(live) };
  }
  // RKE (RKE1) under Rancher: the v3 management Cluster holds the RKE options.
  const name = legacyClusterName(live, at.name);
  const legacy = await management.get({ apiVersion: 'management.cattle.io/v3', kind: 'Cluster', name });
  if (!legacy) throw clusterNotFound(at, ref);
  return { path: `clusters.management.cattle.io/${name}`, text: definitionText(legacy) };
}

/** The object as a planner reads it: without its status and managedFields. */
function definitionText(live: Record<string, unknown> & { metadata?: object }): string {
  const { status: _status, ...object } = live;
  const metadata = object.metadata ? { ...(object.metadata as Record<string, unknown>) } : undefined;
  if (metadata) delete metadata.managedFields;
  return stringify({ ...object, ...(metadata ? { metadata } : {}) }, { lineWidth: 0 });
}

/**
 * Rancher 2.6+ mirrors every legacy (RKE1, imported, hosted) cluster `c-xxxxx` as a provisioning Cluster of the
 * same name in its fleet workspace, with no rkeConfig (rancher/rancher pkg/controllers/provisioningv2/cluster
 * controller.go generateProvisioningClusterFromLegacyCluster); status.clusterName names the v3 Cluster.
 */
function isLegacyWrapper(cluster: unknown): boolean {
  const spec = (cluster as { spec?: { rkeConfig?: unknown } }).spec;
  return spec?.rkeConfig === undefined || spec.rkeConfig === null;
}

function legacyClusterName(wrapper: unknown, fallback: string): string {
  const name = (wrapper as { status?: { clusterName?: unknown } } | undefined)?.status?.clusterName;
  return typeof name === 'string' && name !== '' ? name : fallback;
}

function clusterNotFound(at: RancherClusterRef, ref: string): InputError {
  return new InputError(
    'UP-CLUSTER-NOT-FOUND',
    `the Rancher cluster ${at.namespace}/${at.name} does not exist`,
    {
      location: { field: '--cluster', value: ref },
      hint: 'list them with: kubectl --context <rancher-context> get clusters.provisioning.cattle.io -A (RKE clusters: get clusters.management.cattle.io, the c-xxxxx name)',
    },
  );
}
