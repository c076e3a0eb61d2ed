import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../packages/sandbox/src/apiserver/index.js';
import { RANCHER_NAMESPACE } from '../../../packages/sandbox/src/twin/rke2/provisioning-cluster.js';
import {
  CLUSTER_REF,
  endState,
  overlapDetail,
  overlaps,
  provisioningCluster,
  startReliabilityTwin,
} from './harness.js';

/** What "a person" adds to the provisioning Cluster while uproot migrates it: unrelated to the migration. */
const PERSON_LABEL = { key: 'team.example.com/owner', value: 'platform' };
const PERSON_SELECTOR_CONFIG = {
  config: { 'kubelet-arg': ['max-pods=110'] },
  machineLabelSelector: { matchLabels: { 'pool.example.com/gpu': 'true' } },
};

describe('uproot migrate on the rke2-intree twin under API faults and a concurrent edit', () => {
  it('completes through 5% 500/429 answers, verify passes, and the person\u2019s edit survives', async () => {
    const sb = await startReliabilityTwin();
    try {
      const { twin } = sb;
      const rules = [twin.downstream, twin.management!].flatMap((server) => [
        server.faults.add({ action: { type: 'status', code: 500 }, probability: 0.025 }),
        server.faults.add({
          action: { type: 'status', code: 429, retryAfterSeconds: 1 },
          probability: 0.025,
        }),
      ]);

      let edited = false;
      const result = await sb.migrate(
        {},
        {
          onEvent: (e) => {
            // While Rancher rolls uproot's first Cluster edit, someone edits the Cluster (read, change, write
            // back); install-ccm and switch-to-external then edit it again.
            if (edited || e.type !== 'gate-waiting' || e.step !== 'enable-leader-migration') return;
            edited = true;
            const store = twin.management!.store;
            const next = structuredClone(provisioningCluster(twin)) as {
              metadata: { labels?: Record<string, string> };
              spec: { rkeConfig: { machineSelectorConfig: unknown[] } };
            };
            next.metadata.labels = {
              ...(next.metadata.labels ?? {}),
              [PERSON_LABEL.key]: PERSON_LABEL.value,
            };
            next.spec.rkeConfig.machineSelectorConfig.push(PERSON_SELECTOR_CONFIG);
            store.update(CLUSTER_REF, next as KubeObject, { namespace: RANCHER_NAMESPACE });
          },
        },
      );
      expect(edited, JSON.stringify(sb.events.map((e) => `${e.type}:${'step' in e ? e.step : ''}`))).toBe(
        true,
      );
      expect(result.exitCode, JSON.stringify(result.outcome).slice(0, 800)).toBe(0);
      expect(result.outcome.type === 'ran' && result.outcome.result.type).toBe('completed');
      // The faults really happened (otherwise this test proves nothing).
      expect(rules.reduce((n, r) => n + r.hits(), 0)).toBeGreaterThan(5);

      const verified = await sb.settledVerify();
      expect(verified.report.checks.filter((c) => c.status === 'fail')).toEqual([]);
      expect(verified.exitCode).toBe(0);
      expect(overlaps(twin), overlapDetail(twin)).toEqual({});

      const state = endState(twin) as {
        nodes: { providerID?: string; uninitialized: boolean }[];
        kcm: string[];
      };
      expect(state.nodes.every((n) => n.providerID?.startsWith('aws:///') && !n.uninitialized)).toBe(true);
      expect(state.kcm.every((f) => f === '--cloud-provider=external')).toBe(true);

      const cluster = provisioningCluster(twin) as {
        metadata?: { labels?: Record<string, string> };
        spec?: { rkeConfig?: { machineSelectorConfig?: unknown[] } };
      };
      expect(cluster.metadata?.labels?.[PERSON_LABEL.key]).toBe(PERSON_LABEL.value);
      // The person's entry survives with its selector and its own kubelet arg; uproot adds the external cloud
      // provider to it, since a selector's kubelet-arg replaces the global one on the machines it selects.
      const entries = (cluster.spec?.rkeConfig?.machineSelectorConfig ?? []) as {
        config?: Record<string, unknown>;
        machineLabelSelector?: unknown;
      }[];
      const persons = entries.filter(
        (e) =>
          JSON.stringify(e.machineLabelSelector) ===
          JSON.stringify(PERSON_SELECTOR_CONFIG.machineLabelSelector),
      );
      expect(persons).toHaveLength(1);
      expect(persons[0]?.config?.['kubelet-arg']).toEqual(['max-pods=110', 'cloud-provider=external']);
    } finally {
      await sb.close();
    }
  }, 150_000);
});
