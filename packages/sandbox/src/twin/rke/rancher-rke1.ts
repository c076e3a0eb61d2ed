import { stringify } from 'yaml';
import type { Clock } from 'uproot';
import { MANAGEMENT_CLUSTER, managementView, withManagementView } from 'uproot/core';
import { isRecord, metaOf, type KubeObject } from '../kube/kube-types.js';
import type { TwinKube } from '../kube/twin-kube.js';
import { WorkQueue } from '../runtime/work-queue.js';
import type { Scenario } from '../../scenarios/index.js';
import type { RkeUp } from './rke-up.js';

/**
 * Rancher managing an RKE (RKE1) cluster, simulated after rancher/rancher v2.8
 * pkg/controllers/management/clusterprovisioner/provisioner.go: the cluster is a cluster-scoped
 * `clusters.management.cattle.io/v3` object (`c-xxxxx`) whose `spec.rancherKubernetesEngineConfig` Rancher
 * applies with RKE. On a spec change (reconcileCluster: getSpec compares the spec with status.appliedSpec) it
 * sets condition `Updated` to Unknown, runs `rke up` (the twin's), then on success records
 * status.appliedSpec and clears status.failedSpec, with `Updated` True (condition.Do); on failure it records
 * status.failedSpec (recordFailure) and sets `Updated` False with RKE's error as message. Rancher 2.6+ also
 * keeps a provisioning.cattle.io Cluster of the same name in the fleet workspace, without rkeConfig
 * (provisioningv2/cluster controller.go generateProvisioningClusterFromLegacyCluster).
 */

export const MANAGEMENT_CLUSTERS = 'management.cattle.io/v3/clusters';
const UPDATED = 'Updated';

/** Rancher's name for a legacy cluster: `c-` and five lower-case letters or digits, stable per cluster name. */
export function rke1ClusterId(clusterName: string): string {
  let h = 2166136261;
  for (const ch of clusterName) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return `c-${h.toString(36).padStart(5, '0').slice(-5)}`;
}

/** The v3 Cluster and its provisioning wrapper, as Rancher holds them once the cluster is provisioned. */
export function rke1ManagementObjects(options: {
  readonly clusterName: string;
  readonly namespace: string;
  /** The cluster.yml body (yaml form) the twin starts from. */
  readonly rke: Record<string, unknown>;
  readonly now: number;
}): { cluster: KubeObject; status: Record<string, unknown>; wrapper: KubeObject; wrapperStatus: object } {
  const id = rke1ClusterId(options.clusterName);
  const base: KubeObject = {
    apiVersion: MANAGEMENT_CLUSTER.apiVersion,
    kind: MANAGEMENT_CLUSTER.kind,
    metadata: { name: id, labels: { 'provider.cattle.io': 'rke' } },
    spec: { displayName: options.clusterName, fleetWorkspaceName: options.namespace },
  };
  const cluster = withManagementView(base as Parameters<typeof withManagementView>[0], {
    rancher_kubernetes_engine_config: options.rke,
  }) as KubeObject;
  const spec = cluster.spec as Record<string, unknown>;
  const time = new Date(options.now).toISOString();
  const condition = (type: string) => ({ type, status: 'True', lastUpdateTime: time });
  return {
    cluster,
    status: {
      driver: 'rancherKubernetesEngine',
      provider: 'rke',
      conditions: [condition('Provisioned'), condition(UPDATED), condition('Ready')],
      appliedSpec: { rancherKubernetesEngineConfig: spec.rancherKubernetesEngineConfig },
    },
    wrapper: {
      apiVersion: 'provisioning.cattle.io/v1',
      kind: 'Cluster',
      metadata: { name: id, namespace: options.namespace },
      spec: {},
    },
    wrapperStatus: { clusterName: id, ready: true },
  };
}

export interface RancherRke1Options {
  readonly management: TwinKube;
  readonly rkeUp: RkeUp;
  readonly clock: Clock;
  readonly scenario: Pick<Scenario, 'clusterName'>;
  readonly log: (line: string) => void;
}

export class RancherRke1Controller {
  private readonly queue: WorkQueue<string>;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  private readonly clusterId: string;

  constructor(private readonly options: RancherRke1Options) {
    this.clusterId = rke1ClusterId(options.scenario.clusterName);
    this.queue = new WorkQueue(
      options.clock,
      () => this.reconcile(),
      (_key, error) =>
        options.log(`rancher (rke1): ${error instanceof Error ? error.message : String(error)}`),
      { tracked: false },
    );
  }

  start(): void {
    this.unsubscribe = this.options.management.watch(MANAGEMENT_CLUSTERS, (event) => {
      if (metaOf(event.object).name !== this.clusterId) return;
      if (event.prev && JSON.stringify(event.prev.spec) === JSON.stringify(event.object.spec)) return;
      this.queue.add('cluster');
    });
    this.queue.add('cluster');
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.queue.close();
  }

  private cluster(): KubeObject | undefined {
    return this.options.management.get(MANAGEMENT_CLUSTERS, undefined, this.clusterId);
  }

  private writeStatus(edit: (status: Record<string, unknown>) => void): void {
    this.options.management.mutateStatus(MANAGEMENT_CLUSTERS, undefined, this.clusterId, (draft) => {
      const status = isRecord(draft.status) ? { ...draft.status } : {};
      edit(status);
      draft.status = status;
      return draft;
    });
  }

  private setUpdated(status: Record<string, unknown>, value: string, message?: string): void {
    const conditions = Array.isArray(status.conditions) ? [...(status.conditions as object[])] : [];
    const next = {
      type: UPDATED,
      status: value,
      lastUpdateTime: new Date(this.options.clock.now()).toISOString(),
      ...(message ? { reason: 'Error', message } : {}),
    };
    const i = conditions.findIndex((c) => (c as { type?: string }).type === UPDATED);
    if (i < 0) conditions.push(next);
    else conditions[i] = next;
    status.conditions = conditions;
  }

  private async reconcile(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const cluster = this.cluster();
      if (!cluster || !isRecord(cluster.spec)) return;
      const spec = cluster.spec.rancherKubernetesEngineConfig;
      const status = isRecord(cluster.status) ? cluster.status : {};
      const applied = isRecord(status.appliedSpec)
        ? status.appliedSpec.rancherKubernetesEngineConfig
        : undefined;
      const failed = isRecord(status.failedSpec)
        ? status.failedSpec.rancherKubernetesEngineConfig
        : undefined;
      const key = JSON.stringify(spec);
      // Nothing new to apply: the spec is applied, or its last rke up failed (Rancher backs off; a new spec
      // starts over).
      if (key === JSON.stringify(applied) || key === JSON.stringify(failed)) return;
      this.writeStatus((s) => this.setUpdated(s, 'Unknown'));
      const view = managementView(cluster as Parameters<typeof managementView>[0]);
      const text = stringify(view, { lineWidth: 0 });
      this.options.log(`rancher (rke1): Updating cluster [${this.clusterId}]`);
      const result = await this.options.rkeUp.up(text, `clusters.management.cattle.io/${this.clusterId}`);
      if (this.stopped) return;
      this.writeStatus((s) => {
        if (result.ok) {
          s.appliedSpec = { rancherKubernetesEngineConfig: JSON.parse(key) as unknown };
          delete s.failedSpec;
          this.setUpdated(s, 'True');
        } else {
          s.failedSpec = { rancherKubernetesEngineConfig: JSON.parse(key) as unknown };
          this.setUpdated(s, 'False', `[${result.reason}]`);
        }
      });
      this.options.log(
        `rancher (rke1): ${result.ok ? `Updated cluster [${this.clusterId}]` : `rke up failed: ${result.reason}`}`,
      );
    }
  }
}
