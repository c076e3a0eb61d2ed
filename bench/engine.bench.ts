// The migration engine: pure gate evaluation at 5,000 nodes, the journal's size and codec cost for a real
// plan, and one uninterrupted migration of a small plan against the sandbox API server (requests, saves, wall).
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { seededRandom, VirtualClock } from '../packages/uproot/src/clock/index.js';
import { planClusterFiles } from '../packages/uproot/src/core/plan/plan-cluster.js';
import { KubeClient, kubeconfigTransport } from '../packages/uproot/src/adapters/kube/kube-client.js';
import { KubeObjects } from '../packages/uproot/src/adapters/kube/kube-objects.js';
import { loadKubeConfig } from '../packages/uproot/src/adapters/kube/kubeconfig.js';
import { distroFacts } from '../packages/uproot/src/core/distros/distro-facts.js';
import { evaluateControlPlaneFlags } from '../packages/uproot/src/engine/gates/control-plane-flags.js';
import { evaluateNodesInitialized } from '../packages/uproot/src/engine/gates/node-gates.js';
import type { ComponentPodFacts, NodeFacts } from '../packages/uproot/src/engine/gates/gate-facts.js';
import { decodeJournal, encodeJournal } from '../packages/uproot/src/engine/journal/journal-codec.js';
import { beginApply, createJournal } from '../packages/uproot/src/engine/journal/journal-transitions.js';
import { sanitizePlan } from '../packages/uproot/src/engine/sanitize.js';
import { migrate } from '../packages/uproot/src/toolkit/migrate.js';
import {
  DEFAULT_ADMIN,
  startKubeApiServer,
  writeKubeconfig,
} from '../packages/sandbox/src/apiserver/index.js';
import { autoRollOut, seedLoadBalancer, smallPlan } from '../test/integration/engine/small-plan.js';
import { drive, seedCluster } from '../test/integration/engine/harness.js';

function timeIt(times: number, work: () => void): number {
  const start = performance.now();
  for (let i = 0; i < times; i++) work();
  return (performance.now() - start) / times;
}

function gates(): Record<string, unknown> {
  const nodes: NodeFacts[] = Array.from({ length: 5000 }, (_, i) => ({
    name: `node-${i}`,
    labels: (i < 5 ? { 'node-role.kubernetes.io/control-plane': 'true' } : {}) as Record<string, string>,
    unschedulable: false,
    providerID: `aws:///us-east-1a/i-${i.toString(16).padStart(17, '0')}`,
    taints: [],
  }));
  const pods: ComponentPodFacts[] = nodes.slice(0, 5).map((n) => ({
    name: `kube-controller-manager-${n.name}`,
    nodeName: n.name,
    labels: {},
    args: ['kube-controller-manager', '--cloud-provider=external'],
    phase: 'Running',
    ready: true,
  }));
  return {
    nodesInitialized5000Ms: Number(timeIt(200, () => evaluateNodesInitialized(nodes)).toFixed(3)),
    controlPlaneFlags5Ms: Number(
      timeIt(2000, () =>
        evaluateControlPlaneFlags(
          distroFacts('kubeadm'),
          nodes.slice(0, 5),
          pods,
          { cloudProvider: 'external', kcmLeaderMigration: false },
          's',
        ),
      ).toFixed(4),
    ),
  };
}

function journal(): Record<string, unknown> {
  const path = 'examples/rke2-cluster.yaml';
  const text = readFileSync(path, 'utf8');
  const { plan } = planClusterFiles([{ path, text }]);
  const cluster = parse(text) as Record<string, unknown>;
  let j = createJournal({
    plan: sanitizePlan(plan),
    location: { api: 'management', namespace: 'fleet-default', name: 'uproot-migration-prod-east' },
    run: { runId: 'bench', command: 'migrate', startedAt: new Date(0).toISOString(), resumed: false },
    loadBalancers: [],
    now: 0,
  });
  // Every step backs up the whole Cluster: the largest journal a real RKE2 plan produces.
  for (const s of plan.steps) {
    j = beginApply(
      j,
      s.id,
      s.changes.map((_, i) => ({
        change: i,
        backup: {
          type: 'object',
          ref: { api: 'management', apiVersion: 'v1', kind: 'Cluster', name: 'x' },
          object: cluster,
        },
      })),
      0,
    );
  }
  const data = encodeJournal(j);
  const bytes = Object.entries(data).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0);
  return {
    rke2Steps: plan.steps.length,
    journalKiB: Math.round(bytes / 102.4) / 10,
    encodeMs: Number(timeIt(200, () => encodeJournal(j)).toFixed(3)),
    decodeMs: Number(timeIt(200, () => decodeJournal(data, 'bench')).toFixed(3)),
  };
}

async function migration(): Promise<Record<string, unknown>> {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const server = await startKubeApiServer({ clock, random: seededRandom(7) });
  const dir = mkdtempSync(join(tmpdir(), 'uproot-bench-engine-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    writeKubeconfig(
      kubeconfig,
      [server.kubeconfigEntry(DEFAULT_ADMIN, { contextName: 'sandbox' })],
      'sandbox',
    );
    seedCluster(server, 3);
    seedLoadBalancer(server);
    autoRollOut(server);
    let requests = 0;
    let writes = 0;
    const transport = kubeconfigTransport(loadKubeConfig({ kubeconfig }, {}));
    const objects = new KubeObjects(
      new KubeClient(
        async (req) => {
          requests++;
          if (req.method !== 'GET') writes++;
          return transport(req);
        },
        { clock },
      ),
    );
    const started = performance.now();
    const result = await drive(
      clock,
      migrate(
        { yes: true, skipPreflight: true, stateDir: join(dir, '.uproot') },
        { cwd: dir, env: {}, interactive: false },
        {
          clock,
          connect: () => ({ downstream: objects }),
          buildPlan: async () => smallPlan(),
          runId: 'bench',
        },
      ),
    );
    return {
      steps: 4,
      exitCode: result.exitCode,
      requests,
      writes,
      wallMs: Math.round(performance.now() - started),
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<Record<string, unknown>> {
  return { gates: gates(), journal: journal(), smallPlanMigration: await migration() };
}
