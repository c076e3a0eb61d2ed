/**
 * `uproot snapshot` of a 5,000-node cluster against the sandbox emulators (the preflight bench's cluster:
 * 3 control-plane and 4,997 worker nodes, their instances, one LoadBalancer Service and its ELB): wall time,
 * requests (Kubernetes and AWS: they grow with pages, not nodes, as 1,000 nodes beside 5,000 shows) and the
 * file's size. Issue 27 asks for under 30 s.
 *
 *   npx tsx bench/run.ts snapshot
 */
import { snapshot } from '../packages/uproot/src/toolkit/snapshot.js';
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
  try {
    const started = performance.now();
    const result = await snapshot({
      kubeconfig: sandbox.kubeconfig,
      env: sandbox.env,
      aws: { maxAttempts: 1 },
    });
    const wallMs = Math.round(performance.now() - started);
    const figures = {
      nodes: nodeCount,
      wallMs,
      kubernetesRequests: result.requests.kubernetes,
      awsRequests: result.requests.aws,
      fileBytes: result.bytes,
      recordedNodes: result.scenario.snapshot.kubernetes.nodes.length,
      recordedInstances: result.scenario.snapshot.aws?.instances.length ?? 0,
    };
    process.stderr.write(`bench snapshot: ${JSON.stringify(figures)}\n`);
    return figures;
  } finally {
    await sandbox.close();
  }
}
