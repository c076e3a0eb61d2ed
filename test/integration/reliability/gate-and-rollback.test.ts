import { describe, expect, it } from 'vitest';
import {
  clusterRolledOut,
  kcmCloudProviders,
  overlaps,
  overlapDetail,
  provisioningCluster,
  startReliabilityTwin,
} from './harness.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';

interface ClusterSpec {
  spec?: { rkeConfig?: Record<string, unknown> };
}

/** The parts of the cluster a migration changes, to compare before and after rollback. */
function migratedParts(twin: Twin): { kcm: string[]; additionalManifest: unknown; [key: string]: unknown } {
  const rke = (provisioningCluster(twin) as ClusterSpec).spec?.rkeConfig ?? {};
  const nodes = twin.downstream.store
    .list('v1/nodes')
    .items.map((n) => ({
      name: n.metadata?.name,
      providerID: (n.spec as { providerID?: string } | undefined)?.providerID,
      unschedulable: (n.spec as { unschedulable?: boolean } | undefined)?.unschedulable ?? false,
    }))
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
  return {
    kcm: kcmCloudProviders(twin),
    additionalManifest: rke.additionalManifest,
    machineGlobalConfig: rke.machineGlobalConfig,
    machineSelectorConfig: rke.machineSelectorConfig,
    nodes,
  };
}

describe('uproot migrate against a gate that cannot pass, then rollback', () => {
  it('the CCM can never take the migration lease: switch-to-external stops with the reason and the fix (exit 1); rollback restores the in-tree cluster', async () => {
    const sb = await startReliabilityTwin();
    try {
      const { twin } = sb;
      const before = migratedParts(twin);
      expect(before.kcm).toEqual(
        Array.from({ length: twin.scenario.nodes.controlPlane }, () => '--cloud-provider=aws'),
      );
      expect(String(before.additionalManifest ?? '')).not.toMatch(/HelmChart/);

      // From switch-to-external on, the API refuses every lease request of the cloud-controller-manager (as a
      // broken RoleBinding would): its gate, "the CCM holds the migration lease", can never pass.
      const ccmUser = twin.identities.ccm.user;
      let fault: { hits(): number } | undefined;
      const result = await sb.migrate(
        { skipPreflight: true, gateTimeoutScale: 1 },
        {
          onEvent: (e) => {
            if (e.type === 'step-started' && e.step === 'switch-to-external' && !fault) {
              fault = twin.downstream.faults.add({
                match: { user: ccmUser, resource: 'leases' },
                action: { type: 'status', code: 403, message: 'leases is forbidden' },
              });
            }
          },
        },
      );
      expect(fault?.hits() ?? 0).toBeGreaterThan(0);
      expect(result.exitCode, JSON.stringify(result.outcome).slice(0, 800)).toBe(1);
      expect(result.outcome.type).toBe('ran');
      const failed = result.outcome.type === 'ran' ? result.outcome.result : undefined;
      expect(failed?.type).toBe('gate-failed');
      expect(failed?.type === 'gate-failed' && failed.step).toBe('switch-to-external');
      const stepFailed = sb.events.find((e) => e.type === 'step-failed');
      expect(stepFailed, JSON.stringify(sb.events.slice(-5))).toBeDefined();
      if (stepFailed?.type === 'step-failed') {
        expect(stepFailed.reason.length).toBeGreaterThan(10);
        expect(stepFailed.fix.length).toBeGreaterThan(10);
      }
      // Every step before it was verified; nothing after it ran.
      const verified = sb.events.flatMap((e) => (e.type === 'step-verified' ? [e.step] : []));
      expect(verified).toContain('wait-ccm-rollout');
      expect(verified).not.toContain('switch-to-external');
      const started = sb.events.flatMap((e) => (e.type === 'step-started' ? [e.step] : []));
      expect(started.at(-1)).toBe(failed?.type === 'gate-failed' ? failed.step : undefined);
      expect(overlaps(twin), overlapDetail(twin)).toEqual({});

      (fault as { remove?: () => void } | undefined)?.remove?.();
      // Rancher's roll uncordoned the control plane before switch-to-external's own uncordon (a no-op then):
      // undoing it cordons them again from the cordon step's record, so undoing install-ccm finds them cordoned.
      const undone = await sb.rollback();
      expect(undone.exitCode, JSON.stringify(undone.outcome).slice(0, 800)).toBe(0);
      expect(undone.outcome.type === 'ran' && undone.outcome.result.type).toBe('rolled-back');
      // rollback returns only after Rancher's roll of the restored flags is done (cluster-rolled-out and the
      // control-plane flags gates after undoing the first flag change): compare right away.
      expect(clusterRolledOut(twin)).toBe(true);
      const after = migratedParts(twin);
      expect(after.kcm).toEqual(before.kcm);
      expect(after.kcm.every((f) => !f.includes('leader-migration'))).toBe(true);
      expect(String(after.additionalManifest ?? '')).not.toMatch(/aws-cloud-controller-manager/);
      expect(after).toEqual(before);
      expect(overlaps(twin), overlapDetail(twin)).toEqual({});
    } finally {
      await sb.close();
    }
  }, 150_000);
});
