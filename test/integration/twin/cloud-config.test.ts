import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { cloudConfigMap, renderCcmValues } from '../../../packages/uproot/src/core/ccm/chart-values.js';
import type { ScenarioInput } from '../../../packages/sandbox/src/scenarios/index.js';
import { advanceUntil, nodes, startHarness, type TwinHarness } from './support.js';

/**
 * The twin's CCM reads --cloud-config as cloud-provider-aws does: with `KubernetesClusterID` it filters by that
 * id; without a cloud config it takes the id from its instance's tags, and an instance that also carries an
 * older cluster's tag stops it ("Found multiple cluster tags", pkg/providers/v1/tags.go). The instances of
 * the cloud-config-carried-over scenario carry two cluster tags; here the CCM runs from the chart, once
 * without and once with the ConfigMap uproot renders.
 */
const MULTIPLE_TAGS =
  /Found multiple cluster tags with prefix kubernetes\.io\/cluster\/ \("(demo|payments-old)" and/;

function scenario(cloudConfig: boolean): ScenarioInput {
  return {
    name: 'cloud-config-twin',
    description: 'RKE on the external provider, instances tagged for two cluster ids',
    distribution: 'rke',
    kubernetesVersion: 'v1.26.15-rancher1-1',
    clusterName: 'demo',
    cloudProvider: 'external',
    nodes: { controlPlane: 1, workers: 1 },
    defects: { extraInstanceClusterTag: 'payments-old' },
    ccm: {
      values: renderCcmValues({ flavor: 'rke', imageTag: 'v1.26.14', leaderMigration: false, cloudConfig }),
    },
  };
}

function eventMessages(h: TwinHarness): string[] {
  return h.twin.downstream.store
    .list('v1/events')
    .items.map((e) => String((e as { message?: unknown }).message ?? ''));
}

describe('the twin CCM and --cloud-config', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  const initialized = (h: TwinHarness) =>
    nodes(h.twin).length === 2 &&
    nodes(h.twin).every((n) => n.providerID && !n.taints.some((t) => t.key.includes('uninitialized')));

  it('without a cloud config, an instance tagged for two clusters stops node initialisation', async () => {
    const clock = new VirtualClock();
    harness = await startHarness(scenario(false), clock);
    const h = harness;
    await advanceUntil(clock, () => eventMessages(h).some((m) => MULTIPLE_TAGS.test(m)), {
      maxMs: 180_000,
      describe: () => eventMessages(h).join('\n'),
    });
    await clock.advanceBy(60_000);
    expect(initialized(h)).toBe(false);
    // What a person sees: the real kubectl shows the cloud-node controller's event on the node.
    const events = await h.kubectl(['get', 'events', '--field-selector', 'reason=FailedToGetProviderID']);
    expect(events.stdout).toMatch(MULTIPLE_TAGS);
  });

  it('with the carried KubernetesClusterID mounted from the ConfigMap, every node is initialised', async () => {
    const clock = new VirtualClock();
    harness = await startHarness(scenario(true), clock);
    const h = harness;
    // Until the ConfigMap exists the CCM cannot open its --cloud-config and is restarted with back-off.
    await advanceUntil(
      clock,
      () => h.logs.some((l) => /couldn't open cloud provider configuration/.test(l)),
      {
        maxMs: 180_000,
        describe: () => h.logs.slice(-20).join('\n'),
      },
    );
    const applied = await h.kubectl(['apply', '-f', '-'], {
      input: stringify(cloudConfigMap('[Global]\nKubernetesClusterID = demo\n')),
    });
    expect(applied.code, applied.stderr).toBe(0);
    await advanceUntil(clock, () => initialized(h), {
      maxMs: 600_000,
      describe: () => h.logs.slice(-20).join('\n'),
    });
    expect(eventMessages(h).some((m) => MULTIPLE_TAGS.test(m))).toBe(false);
  });
});
