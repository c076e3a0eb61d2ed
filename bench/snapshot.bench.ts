/**
 * `uproot snapshot` of a 5,000-node cluster against the sandbox emulators (the preflight bench's cluster:
 * 3 control-plane and 4,997 worker nodes, their instances, one LoadBalancer Service and its ELB): wall time,
 * requests (Kubernetes and AWS: they grow with pages, not nodes, as 1,000 nodes beside 5,000 shows) and the
 * file's size. Issue 27 asks for under 30 s. Then the file replays as a twin (what `uproot sandbox up --scenario
 * FILE` starts): the wall time until every recorded node is Ready.
 *
 *   npx tsx bench/run.ts snapshot
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualClock } from '../packages/uproot/src/clock/index.js';
import { snapshot } from '../packages/uproot/src/toolkit/snapshot.js';
import { loadScenario } from '../packages/sandbox/src/scenarios/index.js';
import { startTwin } from '../packages/sandbox/src/twin/index.js';
import { startPreflightSandbox } from '../test/integration/preflight/sandbox-cluster.js';

/** 1,000 nodes beside 5,000 shows the requests growing with pages (five times the nodes, not the requests). */
const SIZES = [1000, 5000];

export async function run(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const nodes of SIZES) out[`${nodes} nodes`] = await measure(nodes);
  return out;
}

async function measure(nodeCount: number): Promise<Record<string, unknown>> {
  const sandbox = await startPreflightSandbox({ controlPlane: 3, workers: nodeCount - 3 });
  let taken: Awaited<ReturnType<typeof snapshot>>;
  let wallMs: number;
  try {
    const started = performance.now();
    taken = await snapshot({ kubeconfig: sandbox.kubeconfig, env: sandbox.env, aws: { maxAttempts: 1 } });
    wallMs = Math.round(performance.now() - started);
  } finally {
    await sandbox.close();
  }
  const figures = {
    nodes: nodeCount,
    wallMs,
    kubernetesRequests: taken.requests.kubernetes,
    awsRequests: taken.requests.aws,
    fileBytes: taken.bytes,
    recordedNodes: taken.scenario.snapshot.kubernetes.nodes.length,
    recordedInstances: taken.scenario.snapshot.aws?.instances.length ?? 0,
    // The emulators are closed first: the replay has the machine to itself.
    replay: await replayAsTwin(taken.text, nodeCount),
  };
  process.stderr.write(`bench snapshot: ${JSON.stringify(figures)}\n`);
  return figures;
}

/** The file, replayed as a twin in virtual time: wall time to start and until every node is Ready. */
async function replayAsTwin(text: string, nodeCount: number): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-snapshot-replay-'));
  try {
    const file = join(dir, 'snapshot.yaml');
    writeFileSync(file, text);
    const clock = new VirtualClock();
    const t0 = performance.now();
    const twin = await startTwin({ scenario: loadScenario(file).scenario, clock, dir: join(dir, 'twin') });
    const started = performance.now();
    // Twenty simulated seconds: every node registers and turns Ready (bench/support/twin-startup.ts).
    await clock.advanceBy(20_000);
    const ready = twin.status().nodes.ready;
    const settled = performance.now();
    await twin.close();
    if (ready !== nodeCount) throw new Error(`the replay has ${ready}/${nodeCount} nodes Ready`);
    return { nodesReady: ready, startMs: Math.round(started - t0), readyMs: Math.round(settled - t0) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
