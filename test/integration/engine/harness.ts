/**
 * A sandbox cluster for engine tests: the sandbox API server on loopback, on a virtual clock, with control-plane
 * nodes, manager leases and a kubeconfig; clients built from that kubeconfig through uproot's own adapters.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom, VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { loadKubeConfig } from '../../../packages/uproot/src/adapters/kube/kubeconfig.js';
import {
  KubeClient,
  kubeconfigTransport,
  type KubeTransport,
} from '../../../packages/uproot/src/adapters/kube/kube-client.js';
import { KubeObjects } from '../../../packages/uproot/src/adapters/kube/kube-objects.js';
import {
  DEFAULT_ADMIN,
  startKubeApiServer,
  writeKubeconfig,
  type KubeApiServer,
  type KubeObject,
} from '../../../packages/sandbox/src/apiserver/index.js';

export interface EngineSandbox {
  readonly server: KubeApiServer;
  readonly clock: VirtualClock;
  readonly dir: string;
  readonly kubeconfig: string;
  /** uproot's client for this server; `wrap` intercepts the transport (faults, crashes, counting). */
  objects(wrap?: (t: KubeTransport) => KubeTransport, options?: { attempts?: number }): KubeObjects;
  close(): Promise<void>;
}

export const START = Date.UTC(2026, 0, 1);

export async function engineSandbox(
  options: { seed?: number; nodes?: number; tls?: boolean } = {},
): Promise<EngineSandbox> {
  const clock = new VirtualClock(START);
  const server = await startKubeApiServer({
    clock,
    random: seededRandom(options.seed ?? 7),
    tls: options.tls ?? true,
  });
  const dir = mkdtempSync(join(tmpdir(), 'uproot-engine-'));
  const kubeconfig = join(dir, 'kubeconfig');
  // https with the sandbox's CA: TLS verification stays on, as it does against a real cluster.
  writeKubeconfig(kubeconfig, [server.kubeconfigEntry(DEFAULT_ADMIN, { contextName: 'sandbox' })], 'sandbox');
  seedCluster(server, options.nodes ?? 3);
  const kc = loadKubeConfig({ kubeconfig }, {});
  return {
    server,
    clock,
    dir,
    kubeconfig,
    objects: (wrap, opts = {}) => {
      const transport = kubeconfigTransport(kc);
      return new KubeObjects(
        new KubeClient(wrap ? wrap(transport) : transport, { clock, retryBaseMs: 100, ...opts }, server.url),
      );
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function seedCluster(server: KubeApiServer, controlPlanes: number): void {
  for (let i = 1; i <= controlPlanes; i++) {
    server.store.create('v1/nodes', {
      metadata: { name: `cp-${i}`, labels: { 'node-role.kubernetes.io/control-plane': 'true' } },
      spec: { providerID: `aws:///us-east-1a/i-0000000000000000${i}` },
    });
  }
  server.store.create('v1/nodes', {
    metadata: { name: 'worker-1', labels: {} },
    spec: { providerID: 'aws:///us-east-1a/i-00000000000000009' },
  });
  for (const name of ['kube-controller-manager', 'cloud-provider-extraction-migration']) {
    server.store.create('coordination.k8s.io/v1/leases', {
      metadata: { name, namespace: 'kube-system' },
      spec: {
        holderIdentity: 'cp-1_aaaa',
        leaseDurationSeconds: 15,
        renewTime: new Date(START).toISOString(),
      },
    });
  }
}

/** Advances virtual time until `work` settles (a sandbox with no real waiting), up to a limit. */
export async function drive<T>(
  clock: VirtualClock,
  work: Promise<T>,
  options: { stepMs?: number; limitMs?: number } = {},
): Promise<T> {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  const end = clock.now() + (options.limitMs ?? 6 * 3600_000);
  while (!settled) {
    if (clock.now() >= end) throw new Error('drive: the work did not finish within the virtual time limit');
    await clock.advanceBy(options.stepMs ?? 1_000);
  }
  return work;
}

export function get(
  server: KubeApiServer,
  resource: string,
  namespace: string | undefined,
  name: string,
): KubeObject | undefined {
  return server.store.get(resource, namespace, name);
}
