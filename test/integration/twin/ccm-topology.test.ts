import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import type { ScenarioInput } from '../../../packages/sandbox/src/scenarios/index.js';
import { advanceUntil, nodes, startHarness, type TwinHarness } from './support.js';

/**
 * The twin's CCM asks for each node's network topology from the releases that do (v1.30.4, v1.31.2, v1.32.0
 * on), with the instance role it runs under: the IAM gap of the ccm-topology-permission scenario shows up as
 * the CCM's own log line, and nodes are initialised anyway.
 */
const base = parse(
  readFileSync('packages/sandbox/scenarios/ccm-topology-permission.yaml', 'utf8'),
) as ScenarioInput & {
  ccm: { values: Record<string, unknown> };
};
const NOT_AUTHORIZED =
  /cloud-node: Not authorized to perform: ec2:DescribeInstanceTopology, permission missing: "operation error EC2: DescribeInstanceTopology, https response error StatusCode: 403, RequestID: [^,]+, api error UnauthorizedOperation: You are not authorized to perform this operation\. User: arn:aws:sts::\d+:assumed-role\/demo-control-plane\/i-\w+ is not authorized to perform: ec2:DescribeInstanceTopology/;

const withCcmTag = (tag: string): ScenarioInput => ({
  ...base,
  ccm: { values: { ...base.ccm.values, image: { tag } } },
});

describe('the CCM and ec2:DescribeInstanceTopology', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  const initialized = (h: TwinHarness) =>
    nodes(h.twin).length > 0 &&
    nodes(h.twin).every((n) => n.providerID && !n.taints.some((t) => t.key.includes('uninitialized')));
  const labels = (h: TwinHarness) =>
    h.twin.downstream.store.list('v1/nodes').items.map((n) => n.metadata?.labels ?? {});

  it('v1.32.8 without the permission logs the real UnauthorizedOperation and still initialises every node', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('ccm-topology-permission', clock);
    const h = harness;
    await advanceUntil(clock, () => initialized(h), { stepMs: 1_000, maxMs: 120_000 });
    expect(
      h.logs.some((l) => NOT_AUTHORIZED.test(l)),
      h.logs.filter((l) => /cloud-node/.test(l)).join('\n'),
    ).toBe(true);
    expect(labels(h).some((l) => Object.keys(l).some((k) => k.startsWith('topology.k8s.aws/')))).toBe(false);
    // The region is remembered as unsupported for 24 hours: one log line per CCM process, not one per node.
    const leaders = new Set(h.logs.filter((l) => NOT_AUTHORIZED.test(l)).map((l) => l.split(' ')[1]));
    expect(h.logs.filter((l) => NOT_AUTHORIZED.test(l)).length).toBe(leaders.size);
  });

  it('v1.29.10 never asks (no topology before v1.30.4)', async () => {
    const clock = new VirtualClock();
    harness = await startHarness(withCcmTag('v1.29.10'), clock);
    const h = harness;
    await advanceUntil(clock, () => initialized(h), { stepMs: 1_000, maxMs: 120_000 });
    expect(h.logs.some((l) => /DescribeInstanceTopology/.test(l))).toBe(false);
  });

  it('with the permission, instances of a topology-capable type get the network-node labels (real kubectl)', async () => {
    const clock = new VirtualClock();
    harness = await startHarness(
      {
        ...base,
        aws: { instanceType: 'p4d.24xlarge' },
        iam: { controlPlaneMissingActions: [] },
      },
      clock,
    );
    const h = harness;
    await advanceUntil(clock, () => initialized(h), { stepMs: 1_000, maxMs: 120_000 });
    const out = await h.kubectl([
      'get',
      'nodes',
      '-o',
      'jsonpath={range .items[*]}{.metadata.labels.topology\\.k8s\\.aws/network-node-layer-3}{"\\n"}{end}',
    ]);
    expect(out.code, out.stderr).toBe(0);
    const layer3 = out.stdout.trim().split('\n');
    expect(layer3).toHaveLength(nodes(h.twin).length);
    expect(layer3.every((v) => /^nn-[0-9a-f]{17}$/.test(v))).toBe(true);
  });
});
