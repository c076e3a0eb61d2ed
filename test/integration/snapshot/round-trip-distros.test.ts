/**
 * Replay faithfulness beyond RKE2 (issue 27 part 3): `uproot snapshot` of the RKE twin (rke up's cluster.yml),
 * of RKE under Rancher (its v3 Cluster) and of the kubeadm twin (its control plane's manifests), replayed as
 * a twin, gives the same preflight verdict for every check, the same `migrate --dry-run -o json` step ids, and
 * the same node names, labels and taints as the original.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import { awsEnvironment } from '../../../packages/sandbox/src/aws/index.js';
import { twinTarget } from '../../../packages/sandbox/src/demo/twin-target.js';
import { R } from '../../../packages/sandbox/src/twin/kube/twin-kube.js';
import { startReliabilityTwin, type ReliabilityTwin } from '../reliability/harness.js';

async function cli(sb: ReliabilityTwin, dir: string, args: readonly string[]) {
  const env = { PATH: process.env.PATH, ...awsEnvironment(sb.twin.aws), AWS_EC2_METADATA_DISABLED: 'true' };
  const io = Object.assign(recordingIo({ cwd: dir, env }), { clock: sb.clock });
  const code = await runCli(args, io);
  return { code, out: io.stdoutText, err: io.stderrText };
}

/** The connection flags a person would give this twin's distribution. */
function targetFlags(sb: ReliabilityTwin): string[] {
  const t = sb.target;
  return [
    ['--kubeconfig', t.kubeconfig],
    ['--context', t.context],
    ['--rancher-context', t.rancherContext],
    ['--cluster', t.cluster],
    ['--cluster-file', t.clusterFile],
  ].flatMap(([flag, value]) => (value ? [flag!, value] : []));
}

function executionFlags(sb: ReliabilityTwin): string[] {
  const e = twinTarget(sb.twin, sb.clock).execution;
  return [
    ['--rke-binary', e.rkeBinary],
    ['--node-command', e.nodeCommand],
  ].flatMap(([flag, value]) => (value ? [flag!, value] : []));
}

interface Observed {
  verdicts: Record<string, string>;
  steps: string[];
  nodes: { name: string; labels: Record<string, string>; taints: unknown[] }[];
}

async function observe(sb: ReliabilityTwin, dir: string): Promise<Observed> {
  const pre = await cli(sb, dir, ['preflight', ...targetFlags(sb), '-o', 'json']);
  const report = JSON.parse(pre.out) as { checks: { id: string; status: string }[] };
  const dry = await cli(sb, dir, [
    'migrate',
    '--dry-run',
    '-o',
    'json',
    ...targetFlags(sb),
    ...executionFlags(sb),
  ]);
  const doc = JSON.parse(dry.out) as { outcome: string; plan?: { steps: { id: string }[] } };
  expect(doc.outcome, dry.out + dry.err).toBe('dry-run');
  return {
    verdicts: Object.fromEntries(report.checks.map((c) => [c.id, c.status])),
    steps: doc.plan!.steps.map((s) => s.id),
    nodes: sb.twin.kube
      .list(R.nodes)
      .map((n) => ({
        name: n.metadata?.name ?? '',
        labels: { ...(n.metadata?.labels ?? {}) },
        taints: [...((n.spec as { taints?: unknown[] } | undefined)?.taints ?? [])],
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

describe.each(['rke-intree', 'rke-rancher', 'kubeadm-intree'])('a snapshot of the %s twin', (scenario) => {
  let dir: string;
  let before: Observed;
  let after: Observed;
  let written: { code: number; out: string; err: string };
  let clusterId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `uproot-snapshot-${scenario}-`));
    const original = await startReliabilityTwin(scenario);
    try {
      before = await observe(original, dir);
      written = await cli(original, dir, ['snapshot', ...targetFlags(original), '--out', 'cluster.yaml']);
      clusterId = original.twin.scenario.clusterName;
    } finally {
      await original.close();
    }
    expect(written.code, written.err).toBe(0);
    const replay = await startReliabilityTwin(join(dir, 'cluster.yaml'));
    try {
      after = await observe(replay, dir);
    } finally {
      await replay.close();
    }
  }, 300_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('records the cluster id the AWS resources are tagged with (for RKE under Rancher, not its c-xxxxx name)', () => {
    const doc = parse(readFileSync(join(dir, 'cluster.yaml'), 'utf8')) as { snapshot: { clusterId: string } };
    expect(doc.snapshot.clusterId).toBe(clusterId);
  });

  it('replays with the same preflight verdict for every check', () => {
    expect(Object.keys(before.verdicts).length).toBeGreaterThan(10);
    expect(after.verdicts).toEqual(before.verdicts);
  });

  it('replays with the same migrate --dry-run step ids', () => {
    expect(before.steps.length).toBeGreaterThan(3);
    expect(after.steps).toEqual(before.steps);
  });

  it('replays with the same node names, labels and taints', () => {
    expect(before.nodes.length).toBeGreaterThan(1);
    expect(after.nodes).toEqual(before.nodes);
  });
});
