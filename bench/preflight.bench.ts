/**
 * preflight at 100, 1,000 and 5,000 nodes against the sandbox emulators: requests by call (Kubernetes and
 * AWS) and wall time, side by side with the per-node approach of the seed's providerID check
 * (`kubectl describe nodes | grep ProviderID`: one list, then per node a GET, a pods list, two events lists
 * and a lease GET), issued with client-node one after another as kubectl does.
 *
 *   npx tsx bench/run.ts preflight
 */
import { CoordinationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { preflight } from '../packages/uproot/src/toolkit/preflight.js';
import { startPreflightSandbox } from '../test/integration/preflight/sandbox-cluster.js';

const SIZES = [100, 1000, 5000];
/** At most this many nodes are described one by one; beyond, the per-node time is extrapolated from them. */
const DESCRIBE_SAMPLE = 200;

export async function run(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  for (const nodes of SIZES) {
    const seedStarted = performance.now();
    const sandbox = await startPreflightSandbox({ controlPlane: 3, workers: nodes - 3 });
    const seedMs = performance.now() - seedStarted;
    try {
      sandbox.api.resetStats();
      const started = performance.now();
      const { report } = await preflight({
        kubeconfig: sandbox.kubeconfig,
        env: sandbox.env,
        aws: { maxAttempts: 1 },
      });
      const preflightMs = performance.now() - started;
      const apiServerSaw = sandbox.api.stats().total;
      const perNode = await describeNodes(sandbox.kubeconfig, nodes);
      const ec2 = Object.entries(report.stats.aws.byCall).filter(([k]) => k.startsWith('ec2:'));
      results[`${nodes} nodes`] = {
        seedMs: Math.round(seedMs),
        preflight: {
          wallMs: Math.round(preflightMs),
          outcome: report.outcome,
          kubernetesRequests: report.stats.kubernetes.total,
          kubernetesByCall: report.stats.kubernetes.byCall,
          awsRequests: report.stats.aws.total,
          ec2Requests: ec2.reduce((n, [, v]) => n + v, 0),
          awsByCall: report.stats.aws.byCall,
          apiServerSaw,
        },
        kubectlDescribeNodes: perNode,
      };
      process.stderr.write(
        `bench preflight: ${nodes} nodes: preflight ${Math.round(preflightMs)} ms, describe ${perNode.wallMs} ms\n`,
      );
    } finally {
      await sandbox.close();
    }
  }
  return results;
}

/** The seed's check, request for request: `kubectl describe nodes` (kubectl/pkg/describe/describe.go). */
async function describeNodes(kubeconfig: string, total: number): Promise<Record<string, unknown>> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const leases = kc.makeApiClient(CoordinationV1Api);
  const byCall: Record<string, number> = {};
  const count = (call: string) => (byCall[call] = (byCall[call] ?? 0) + 1);
  const started = performance.now();
  const names: { name: string; uid: string }[] = [];
  let cont: string | undefined;
  do {
    count('list nodes');
    const page = await core.listNode({ limit: 500, ...(cont ? { _continue: cont } : {}) });
    names.push(...page.items.map((n) => ({ name: n.metadata!.name!, uid: n.metadata!.uid! })));
    cont = page.metadata?._continue || undefined;
  } while (cont);
  const sample = names.slice(0, DESCRIBE_SAMPLE);
  for (const { name, uid } of sample) {
    count('get node');
    await core.readNode({ name });
    count('list pods (per node)');
    await core.listPodForAllNamespaces({
      fieldSelector: `spec.nodeName=${name},status.phase!=Succeeded,status.phase!=Failed`,
      limit: 500,
    });
    for (const id of [uid, name]) {
      count('list events (per node)');
      await core.listEventForAllNamespaces({
        fieldSelector: `involvedObject.uid=${id},involvedObject.name=${name},involvedObject.namespace=,involvedObject.kind=Node`,
      });
    }
    count('get lease (per node)');
    await leases.readNamespacedLease({ name, namespace: 'kube-node-lease' }).catch(() => undefined);
  }
  const measuredMs = performance.now() - started;
  const pages = byCall['list nodes'] ?? 1;
  const scale = total / sample.length;
  return {
    requests: pages + 5 * total,
    byCall: Object.fromEntries(
      Object.entries(byCall).map(([k, v]) => [k, k === 'list nodes' ? v : Math.round(v * scale)]),
    ),
    wallMs: Math.round(measuredMs * scale),
    ...(scale !== 1
      ? { timedNodes: sample.length, note: `time measured on ${sample.length} nodes and scaled to ${total}` }
      : {}),
  };
}
