/**
 * `uproot demo` and what it proves, measured:
 *  (a) the wall time of `runDemo` on rke2-intree at --time-scale 50, and in virtual time (the default) for
 *      rke2-intree, rke-intree and kubeadm-intree;
 *  (b) the largest controller gap (twin ownership ledger) of uproot's migration next to the naive procedure on
 *      the same scenario (switch the KCMs to external first, then install the CCM, as seed 002 without leader
 *      migration), both at x50;
 *  (c) `uproot verify` against `kubectl describe nodes | grep ProviderID` (the seeds' check) on a 2,000-node
 *      rke2-intree twin that is not migrated (the in-tree provider set every providerID): wall times, their
 *      ratio, and whether both see the same set of providerIDs;
 *  (d) the journey, `--target-version` (see journeyDemos).
 *
 *   npx tsx bench/run.ts demo
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RealClock, VirtualClock } from '../packages/uproot/src/clock/index.js';
import { ec2Instances } from '../packages/uproot/src/adapters/aws/instance-reader.js';
import { awsEnvironment } from '../packages/sandbox/src/aws/index.js';
import { runDemo } from '../packages/sandbox/src/demo/run-demo.js';
import { loadScenario } from '../packages/sandbox/src/scenarios/index.js';
import { startTwin } from '../packages/sandbox/src/twin/index.js';
import { verify } from '../packages/uproot/src/toolkit/verify.js';
import { ccmHelmChart, patchCluster, rolledOut, until } from './support/rke2-twin-script.js';
import { rke2Rollouts } from './journey.bench.js';

const TIME_SCALE = 50;
const CONTROLLERS = ['service', 'route', 'cloud-node-lifecycle'] as const;

function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

function maxGaps(controllers: Record<string, { maxGapSeconds?: number }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of CONTROLLERS) {
    // Only controllers that ran have a largest gap (not configured / not yet running have none).
    const gap = controllers[name]?.maxGapSeconds;
    if (gap !== undefined) out[name] = gap;
  }
  return out;
}

function largest(gaps: Record<string, number>): number {
  return Math.max(0, ...Object.values(gaps));
}

async function demo(): Promise<{ wallSeconds: number; exitCode: number; gaps: Record<string, number> }> {
  const dir = tempDir('uproot-demo-bench-');
  try {
    const t0 = performance.now();
    const result = await runDemo(
      { scenario: 'rke2-intree', timeScale: TIME_SCALE, dir: join(dir, 'twin') },
      { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
      { instances: ec2Instances },
    );
    return {
      wallSeconds: Math.round((performance.now() - t0) / 100) / 10,
      exitCode: result.exitCode,
      gaps: maxGaps(result.ledger.controllers),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Seed 002 without leader migration, out of order: stop the in-tree controllers, then install the CCM. */
async function naive(): Promise<{ gaps: Record<string, number>; simulatedSeconds: number }> {
  const dir = tempDir('uproot-naive-bench-');
  const clock = new RealClock({ scale: TIME_SCALE });
  const twin = await startTwin({ scenario: loadScenario('rke2-intree').scenario, clock, dir });
  try {
    const patch = (p: unknown): void => patchCluster(twin, p);
    await until(clock, () => twin.status().leases['kube-controller-manager'] !== undefined, 120_000, 'boot');
    const sim0 = clock.now();
    // 1. The KCMs (and kubelets) go external: the in-tree cloud controllers stop with them.
    patch({ spec: { rkeConfig: { machineGlobalConfig: { 'cloud-provider-name': 'external' } } } });
    await clock.sleep(2_000);
    await until(clock, () => rolledOut(twin), 900_000, 'the external roll');
    // 2. Only now the CCM, without leader migration.
    const chart = ccmHelmChart({ leaderMigration: false });
    patch({ spec: { rkeConfig: { additionalManifest: chart } } });
    await clock.sleep(2_000);
    await until(clock, () => rolledOut(twin), 900_000, 'the CCM install');
    await until(
      clock,
      () =>
        twin.status().leases['cloud-controller-manager'] !== undefined &&
        twin.status().nodes.uninitialized === 0,
      600_000,
      'the CCM taking over',
    );
    // Let the new owner act once everywhere, so the gap closes in the ledger.
    await clock.sleep(60_000);
    return {
      gaps: maxGaps(twin.ledgerReport().controllers),
      simulatedSeconds: Math.round((clock.now() - sim0) / 1000),
    };
  } finally {
    await twin.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function sh(command: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout }));
  });
}

async function verifyVsKubectl(nodes: number): Promise<Record<string, unknown>> {
  const dir = tempDir('uproot-verify-bench-');
  const home = tempDir('uproot-verify-bench-home-');
  // Virtual time: the twin holds still while both are timed; verify itself runs on a real clock.
  const clock = new VirtualClock();
  const twin = await startTwin({ scenario: loadScenario('rke2-intree').scenario, clock, dir, nodes });
  try {
    await clock.advanceBy(30_000);
    const truth = new Set(
      twin.downstream.store
        .list('v1/nodes')
        .items.map((n) => (n.spec as { providerID?: string } | undefined)?.providerID ?? ''),
    );
    const env = { PATH: process.env.PATH, ...awsEnvironment(twin.aws), AWS_EC2_METADATA_DISABLED: 'true' };
    const t0 = performance.now();
    const verified = await verify(
      { kubeconfig: twin.files.kubeconfig, context: twin.contexts.downstream },
      { cwd: dir, env, interactive: false },
      { clock: new RealClock(), instances: ec2Instances(env) },
    );
    const verifyMs = performance.now() - t0;
    const providerCheck = verified.report.checks.find((c) => c.id === 'provider-ids');

    const kenv = {
      PATH: process.env.PATH,
      HOME: home,
      KUBECACHEDIR: join(home, 'cache'),
      KUBECONFIG: twin.files.kubeconfig,
    };
    await sh(`kubectl --context ${twin.contexts.downstream} version >/dev/null 2>&1`, kenv); // warm discovery cache
    const t1 = performance.now();
    const k = await sh(
      `kubectl --context ${twin.contexts.downstream} describe nodes | grep ProviderID`,
      kenv,
    );
    const kubectlMs = performance.now() - t1;
    const seen = new Set(
      k.stdout
        .split('\n')
        .map((l) => l.replace(/^\s*ProviderID:\s*/, '').trim())
        .filter(Boolean),
    );
    const same = seen.size === truth.size && [...truth].every((p) => seen.has(p));
    return {
      nodes,
      migrated: false,
      verifyMs: Math.round(verifyMs),
      kubectlDescribeGrepMs: Math.round(kubectlMs),
      kubectlOverVerify: Math.round((kubectlMs / verifyMs) * 100) / 100,
      verifyProviderIdCheck: providerCheck?.status,
      verifyProviderIdDetail: providerCheck?.detail,
      providerIdsSeenByKubectl: seen.size,
      providerIdsInCluster: truth.size,
      sameProviderIds: same && providerCheck?.status === 'pass',
    };
  } finally {
    await twin.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** `uproot demo` in virtual time (its default) per distribution: wall, simulated seconds, largest gap, overlap. */
async function perDistro(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const scenario of ['rke2-intree', 'rke-intree', 'kubeadm-intree']) {
    const dir = tempDir('uproot-demo-bench-');
    try {
      const t0 = performance.now();
      const result = await runDemo(
        { scenario, timeScale: 1, dir: join(dir, 'twin') },
        { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
        { instances: ec2Instances, virtualTime: true },
      );
      const gaps = maxGaps(result.ledger.controllers);
      out[scenario] = {
        exitCode: result.exitCode,
        wallSeconds: Math.round((performance.now() - t0) / 100) / 10,
        simulatedSeconds: result.simulatedSeconds,
        largestGapSeconds: largest(gaps),
        overlapSeconds: Math.max(
          0,
          ...Object.values(result.ledger.controllers).map((c) => c.overlapSeconds ?? 0),
        ),
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

/**
 * The journey: `uproot demo --target-version` in virtual time per distribution (RKE2 and kubeadm to 1.33, RKE
 * to 1.31, its last minor): wall and simulated seconds, hops verified, largest gap, overlap. On RKE2 also the
 * Rancher rolls the twin's planner performed (its log names the Cluster generation of each node it configures:
 * one roll per generation per tier, servers or workers), next to the count bench/journey.bench.ts derives
 * from the plans.
 */
async function journeyDemos(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [scenario, targetVersion] of [
    ['rke2-intree', '1.33'],
    ['kubeadm-intree', '1.33'],
    ['rke-intree', '1.31'],
  ] as const) {
    const dir = tempDir('uproot-journey-bench-');
    const rolls = { servers: new Set<string>(), workers: new Set<string>() };
    try {
      const t0 = performance.now();
      const result = await runDemo(
        { scenario, timeScale: 1, dir: join(dir, 'twin'), targetVersion },
        { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
        {
          instances: ec2Instances,
          virtualTime: true,
          twinLog: (line) => {
            const m = /^rke2 planner: generation (\d+): configuring (etcd|control plane|worker) node/.exec(
              line,
            );
            if (m) (m[2] === 'worker' ? rolls.workers : rolls.servers).add(m[1]!);
          },
        },
      );
      const gaps = maxGaps(result.ledger.controllers);
      out[scenario] = {
        targetVersion,
        exitCode: result.exitCode,
        wallSeconds: Math.round((performance.now() - t0) / 100) / 10,
        simulatedSeconds: result.simulatedSeconds,
        versionSteps: result.journey?.hops.map((h) => `${h.step} ${h.version} ${h.state}`),
        apiServerVersion: result.running.apiServerVersion,
        largestGapSeconds: largest(gaps),
        overlapSeconds: Math.max(
          0,
          ...Object.values(result.ledger.controllers).map((c) => c.overlapSeconds ?? 0),
        ),
        ...(scenario === 'rke2-intree'
          ? { rancherRolls: { controlPlane: rolls.servers.size, workers: rolls.workers.size } }
          : {}),
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  // Rancher's rollouts (an additionalManifest edit rolls the tier without restarting it), from the plans.
  const fromPlans = rke2Rollouts();
  const twin = (out['rke2-intree'] as { rancherRolls: { controlPlane: number; workers: number } })
    .rancherRolls;
  out.rollsCrossCheck = {
    plans: fromPlans,
    twin,
    agree: twin.controlPlane === fromPlans.controlPlane && twin.workers === fromPlans.workers,
  };
  return out;
}

export async function run(): Promise<Record<string, unknown>> {
  const journey = await journeyDemos();
  const virtual = await perDistro();
  const d = await demo();
  const n = await naive();
  const uprootGap = largest(d.gaps);
  const naiveGap = largest(n.gaps);
  return {
    demo: {
      scenario: 'rke2-intree',
      timeScale: TIME_SCALE,
      wallSeconds: d.wallSeconds,
      exitCode: d.exitCode,
    },
    controllerGap: {
      uprootMaxGapSeconds: d.gaps,
      naiveMaxGapSeconds: n.gaps,
      largestUprootSeconds: uprootGap,
      largestNaiveSeconds: naiveGap,
      uprootOverNaive: naiveGap > 0 ? Math.round((uprootGap / naiveGap) * 1000) / 1000 : null,
    },
    verifyVsKubectl: await verifyVsKubectl(2_000),
    virtualTimeDemo: virtual,
    journeyDemo: journey,
  };
}
