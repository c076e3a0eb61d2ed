/**
 * What the benchmarks need to drive an rke2-intree twin by hand (outside uproot): patch Rancher's Cluster,
 * wait for its roll, and the CCM HelmChart a person would append to additionalManifest.
 */
import { stringify } from 'yaml';
import type { Clock } from '../../packages/uproot/src/clock/index.js';
import type { Twin } from '../../packages/sandbox/src/twin/index.js';

const CLUSTERS = 'provisioning.cattle.io/v1/clusters';

/** Merge-patches the twin's provisioning Cluster fleet-default/demo, as `kubectl patch --type merge` would. */
export function patchCluster(twin: Twin, patch: unknown): void {
  twin.management!.store.patch(CLUSTERS, 'fleet-default', 'demo', 'merge', patch);
}

/** Rancher has rolled the Cluster's latest generation out (Updated True). */
export function rolledOut(twin: Twin): boolean {
  const c = twin.management!.store.get(CLUSTERS, 'fleet-default', 'demo');
  const s = (c?.status ?? {}) as {
    observedGeneration?: number;
    conditions?: { type: string; status: string }[];
  };
  return (
    (s.observedGeneration ?? 0) >= (c?.metadata?.generation ?? 1) &&
    (s.conditions ?? []).some((x) => x.type === 'Updated' && x.status === 'True')
  );
}

/** Waits on the twin's clock, a second at a time, until `check` holds; throws after `limitMs`. */
export async function until(
  clock: Clock,
  check: () => boolean,
  limitMs: number,
  what: string,
): Promise<void> {
  const start = clock.now();
  while (!check()) {
    if (clock.now() - start > limitMs) throw new Error(`${what} did not happen`);
    await clock.sleep(1_000);
  }
}

/** The aws-cloud-controller-manager HelmChart for RKE2's additionalManifest (seed 002's values). */
export function ccmHelmChart(options: { readonly leaderMigration: boolean }): string {
  const values = {
    hostNetworking: true,
    image: { tag: 'v1.26.11' },
    // Seed 002's tolerations, plus Exists for Rancher's role taints, which carry no value (etcd NoExecute,
    // control-plane NoSchedule; decision 0011): with the seed's `value: 'true'` alone the CCM never schedules.
    tolerations: [
      { effect: 'NoSchedule', key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true' },
      { effect: 'NoSchedule', key: 'node-role.kubernetes.io/control-plane', value: 'true' },
      { effect: 'NoSchedule', key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' },
      { effect: 'NoExecute', key: 'node-role.kubernetes.io/etcd', operator: 'Exists' },
    ],
    nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' },
    args: [
      '--configure-cloud-routes=false',
      '--use-service-account-credentials=true',
      '--v=2',
      '--cloud-provider=aws',
      ...(options.leaderMigration ? ['--enable-leader-migration=true'] : []),
    ],
  };
  return stringify({
    apiVersion: 'helm.cattle.io/v1',
    kind: 'HelmChart',
    metadata: { name: 'aws-cloud-controller-manager', namespace: 'kube-system' },
    spec: {
      chart: 'aws-cloud-controller-manager',
      targetNamespace: 'kube-system',
      bootstrap: true,
      valuesContent: stringify(values),
    },
  });
}
