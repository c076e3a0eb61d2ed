/**
 * Reaching clusters the way Rancher does: Rancher's local cluster from inside a pod (its service account, in
 * the standard place or where `UPROOT_SERVICEACCOUNT_DIR` says a projected token is mounted), and a downstream
 * cluster through the kubeconfig Rancher keeps for it in the `<cluster>-kubeconfig` Secret beside the
 * provisioning Cluster. The kubeconfig is read into memory and never written, logged or put in an error.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccessError, InputError } from '../../errors/index.js';
import type { RancherClusterRef } from '../../core/distros/rke2/cluster-ref.js';
import { KUBECONFIG_SECRET_KEY, kubeconfigSecretNameOf } from '../../core/fleet/fleet-cluster.js';
import type { KubeObject, ListSelector, ObjectKey, ObjectStore, PatchType } from '../../engine/ports.js';

/** Where client-go's rest.InClusterConfig reads a pod's service account. */
export const DEFAULT_SERVICEACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The pod's own access to the cluster it runs in, as rest.InClusterConfig builds it: the API server from
 * KUBERNETES_SERVICE_HOST/PORT, the CA and the token from the service-account directory (the token re-read
 * as the kubelet rotates it).
 */
export function inClusterKubeConfig(env: Readonly<Record<string, string | undefined>>): KubeConfig {
  const dir = env.UPROOT_SERVICEACCOUNT_DIR || DEFAULT_SERVICEACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  const token = join(dir, 'token');
  if (!host || !port || !existsSync(token)) {
    throw new InputError(
      'UP-RANCHER-IN-CLUSTER',
      `--rancher-in-cluster: not running in a pod (${!host || !port ? 'KUBERNETES_SERVICE_HOST/PORT are not set' : `no service-account token at ${token}`})`,
      {
        location: { field: '--rancher-in-cluster' },
        hint: 'run it in a pod of Rancher’s local cluster (`uproot fleet migrate --as-jobs` makes such Jobs), or pass --rancher-context instead',
      },
    );
  }
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const namespaceFile = join(dir, 'namespace');
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser(
    { name: 'in-cluster', server, caFile: join(dir, 'ca.crt'), skipTLSVerify: false },
    { name: 'service-account', authProvider: { name: 'tokenFile', config: { tokenFile: token } } },
  );
  if (existsSync(namespaceFile)) {
    const namespace = readFileSync(namespaceFile, 'utf8').trim();
    kc.contexts = kc.contexts.map((c) => ({ ...c, namespace }));
  }
  return kc;
}

const secretsRef = (namespace: string, name: string): ObjectKey => ({
  apiVersion: 'v1',
  kind: 'Secret',
  namespace,
  name,
});

/**
 * The downstream cluster's kubeconfig from Rancher's Secret (named by the Cluster's status, see
 * core/fleet/fleet-cluster.ts). Reads the Cluster and the Secret with the caller's access to the local
 * cluster; the caller needs `get` on both (docs/permissions.md).
 */
export async function rancherKubeConfig(
  management: ObjectStore,
  ref: RancherClusterRef,
  cluster?: KubeObject,
): Promise<KubeConfig> {
  const where = `${ref.namespace}/${ref.name}`;
  const obj =
    cluster ??
    (await management.get({ apiVersion: 'provisioning.cattle.io/v1', kind: 'Cluster', ...ref })) ??
    undefined;
  if (!obj) {
    throw new InputError('UP-CLUSTER-NOT-FOUND', `the Rancher cluster ${where} does not exist`, {
      location: { field: '--cluster', value: where },
      hint: 'list them with: kubectl --context <rancher-context> get clusters.provisioning.cattle.io -A',
    });
  }
  const secretName = kubeconfigSecretNameOf(obj);
  const secret = await management.get(secretsRef(ref.namespace, secretName));
  const data = (secret?.data ?? {}) as Record<string, unknown>;
  const encoded = data[KUBECONFIG_SECRET_KEY];
  if (typeof encoded !== 'string' || encoded === '') {
    throw new AccessError(
      'UP-RANCHER-KUBECONFIG-MISSING',
      `Rancher holds no kubeconfig for ${where}: ${secret ? `Secret ${ref.namespace}/${secretName} has no key "${KUBECONFIG_SECRET_KEY}"` : `Secret ${ref.namespace}/${secretName} does not exist`}`,
      {
        location: { field: 'status.clientSecretName', value: secretName },
        hint: 'Rancher writes it once the cluster is provisioned and its agent connected; check the cluster in Rancher (kubectl get clusters.provisioning.cattle.io -n NAMESPACE)',
      },
    );
  }
  const kc = new KubeConfig();
  try {
    kc.loadFromString(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    // The parser's message may quote the text: say only where it is.
    throw invalid(where, ref.namespace, secretName);
  }
  if (!kc.getCurrentCluster()) throw invalid(where, ref.namespace, secretName);
  return kc;
}

function invalid(where: string, namespace: string, secretName: string): AccessError {
  return new AccessError(
    'UP-RANCHER-KUBECONFIG-INVALID',
    `the kubeconfig Rancher holds for ${where} (Secret ${namespace}/${secretName}, key "${KUBECONFIG_SECRET_KEY}") is not a kubeconfig with a current context`,
    {
      location: { field: `${secretName}.data.${KUBECONFIG_SECRET_KEY}` },
      hint: 'Rancher regenerates it when it is deleted: delete the Secret and wait for Rancher to write it again',
    },
  );
}

/**
 * An ObjectStore made on first use (the downstream cluster reached through Rancher's Secret, which takes a
 * read before any client exists). A failure to make it is the failure of every call.
 */
export class DeferredObjects implements ObjectStore {
  private made: Promise<ObjectStore> | undefined;

  constructor(private readonly make: () => Promise<ObjectStore>) {}

  private store(): Promise<ObjectStore> {
    this.made ??= this.make();
    return this.made;
  }

  async get(ref: ObjectKey, signal?: AbortSignal) {
    return (await this.store()).get(ref, signal);
  }
  async list(apiVersion: string, kind: string, selector?: ListSelector, pageSize?: number) {
    return (await this.store()).list(apiVersion, kind, selector, pageSize);
  }
  async create(obj: KubeObject) {
    return (await this.store()).create(obj);
  }
  async replace(obj: KubeObject) {
    return (await this.store()).replace(obj);
  }
  async patch(ref: ObjectKey, type: PatchType, patch: unknown) {
    return (await this.store()).patch(ref, type, patch);
  }
  async apply(obj: KubeObject, force?: boolean) {
    return (await this.store()).apply(obj, force);
  }
  async delete(ref: ObjectKey, preconditions?: { uid?: string; resourceVersion?: string }) {
    return (await this.store()).delete(ref, preconditions);
  }
  async serverVersion() {
    return (await this.store()).serverVersion();
  }
}
