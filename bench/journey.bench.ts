// The journey's restarts, planned and measured. From Kubernetes 1.26 with the in-tree provider to 1.33 on RKE2
// and kubeadm, to 1.31 on RKE (its last minor): for each distribution the restarts the plan causes per machine
// (counted from the plan's --out artifacts, packages/uproot/src/core/distros/journey-restarts.ts) next to the restarts the twin
// counted while `uproot demo --target-version` ran it (packages/sandbox/src/twin/nodes/restart-count.ts); the
// two must agree. A machine's count is its most restarted Kubernetes process. On RKE2 also the naive runbook,
// planned: migrate by seed 002 at the same version, then seven separate upgrades, each with its own edits (the
// CCM re-pinned to the new minor, and before 1.33 the kube-apiserver cloud flags removed), and Rancher's
// rollouts (an additionalManifest edit rolls the control-plane tier without restarting it).
//
// Run: `npm run bench -- journey`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseKubernetesVersion } from '../packages/uproot/src/core/model/kubernetes-version.js';
import { upgradeStepId } from '../packages/uproot/src/core/model/plan-types.js';
import {
  stepOptionsFromPlan,
  type DistroPlanner,
  type StepOptions,
} from '../packages/uproot/src/core/distros/distro.js';
import { removeArgs, rke2ApplyStep, rke2Planner } from '../packages/uproot/src/core/distros/rke2/index.js';
import { rkePlanner } from '../packages/uproot/src/core/distros/rke/index.js';
import { kubeadmPlanner } from '../packages/uproot/src/core/distros/kubeadm/index.js';
import type { JsonRecord } from '../packages/uproot/src/core/model/json-value.js';
import { newestRelease } from '../packages/uproot/src/core/distros/shared/releases.js';
import { ccmImageTagFor } from '../packages/uproot/src/core/ccm/index.js';
import { ec2Instances } from '../packages/uproot/src/adapters/aws/instance-reader.js';
import { runDemo } from '../packages/sandbox/src/demo/run-demo.js';
import {
  kubeadmRestarts,
  planEdits,
  rke2Restarts,
  rke2Rollouts as rancherRollouts,
  rkeRestarts,
  type Edit,
  type PlannedRestarts,
} from '../packages/uproot/src/core/distros/journey-restarts.js';

const example = (name: string) => ({
  path: `examples/${name}`,
  text: readFileSync(fileURLToPath(new URL(`../packages/uproot/examples/${name}`, import.meta.url)), 'utf8'),
});

const spec = (c: JsonRecord): JsonRecord => c.spec as JsonRecord;
const rkeConfig = (c: JsonRecord): JsonRecord => spec(c).rkeConfig as JsonRecord;

function planOf(planner: DistroPlanner, file: ReturnType<typeof example>, targetVersion?: string) {
  return planner.plan(planner.read([file]), targetVersion ? { targetVersion } : {});
}

/** Seven separate upgrades after a same-version migration: version, then CCM, and the 1.33 flags first. */
function naiveUpgrades(migrated: JsonRecord, options: StepOptions): Edit[] {
  const edits: Edit[] = [];
  let current = migrated;
  for (let minor = 27; minor <= 33; minor++) {
    const version = newestRelease('rke2', { major: 1, minor })!;
    if (minor === 33) {
      const flags = structuredClone(current);
      removeArgs(flags, 'kube-apiserver-arg', ['cloud-provider', 'cloud-config']);
      edits.push({ what: 'remove kube-apiserver cloud flags', before: current, after: flags });
      current = flags;
    }
    const upgraded = structuredClone(current);
    spec(upgraded).kubernetesVersion = version;
    edits.push({ what: `kubernetesVersion ${version}`, before: current, after: upgraded });
    // The CCM moved on by itself afterwards (the same chart edit uproot makes, through its transformation).
    const hop = {
      step: upgradeStepId({ major: 1, minor }),
      version,
      ccmTag: ccmImageTagFor(parseKubernetesVersion(version)),
    };
    const repinned = rke2ApplyStep(hop.step, upgraded, { ...options, upgrades: [hop] }) as JsonRecord;
    const ccmOnly = structuredClone(upgraded);
    rkeConfig(ccmOnly).additionalManifest = rkeConfig(repinned).additionalManifest;
    edits.push({ what: `CCM image ${hop.ccmTag}`, before: upgraded, after: ccmOnly });
    current = ccmOnly;
  }
  return edits;
}

/** The RKE2 journey, planned, with Rancher's rollouts; and the naive runbook's. */
function rke2Planned() {
  const file = example('rke2-cluster.yaml');
  const start = (rke2Planner.read([file]) as unknown as { cluster: JsonRecord }).cluster;
  const journey = planEdits(planOf(rke2Planner, file, '1.33'), start, 'rke2-cluster.yaml');
  const sameVersion = planOf(rke2Planner, file);
  const seed002 = planEdits(sameVersion, start, 'rke2-cluster.yaml');
  const naive = [...seed002, ...naiveUpgrades(seed002.at(-1)!.after, stepOptionsFromPlan(sameVersion))];
  return {
    uproot: { ...rke2Restarts(journey), rancherRollouts: rancherRollouts(journey) },
    naive: { ...rke2Restarts(naive), rancherRollouts: rancherRollouts(naive) },
  };
}

function rkePlanned(): PlannedRestarts {
  const file = example('rke-cluster.yml');
  const start = (rkePlanner.read([file]) as unknown as { document: JsonRecord }).document;
  return rkeRestarts(planEdits(planOf(rkePlanner, file, '1.31'), start, 'rke-cluster.yml'));
}

function kubeadmPlanned(): PlannedRestarts {
  const file = example('kube-controller-manager.yaml');
  return kubeadmRestarts(planOf(kubeadmPlanner, file, '1.33'), { 'kube-controller-manager.yaml': file.text });
}

/** `uproot demo --target-version` in virtual time: what the twin counted, most per machine of each role. */
async function measured(scenario: string, targetVersion: string) {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-journey-bench-'));
  try {
    const t0 = performance.now();
    const result = await runDemo(
      { scenario, timeScale: 1, dir: join(dir, 'twin'), targetVersion },
      { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
      { instances: ec2Instances, virtualTime: true },
    );
    const { maxByRole, nodes } = result.ledger.journey.restarts;
    return {
      exitCode: result.exitCode,
      wallSeconds: Math.round((performance.now() - t0) / 100) / 10,
      overlapSeconds: Math.max(
        0,
        ...result.ledger.rows.map((row) => (row.state === 'running' ? row.overlapSeconds : 0)),
      ),
      controlPlane: maxByRole['control-plane'] ?? 0,
      workers: maxByRole.worker ?? 0,
      processes: Object.fromEntries(nodes.map((n) => [n.machine, n.processes])),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sideBySide(planned: PlannedRestarts, twin: Awaited<ReturnType<typeof measured>>) {
  return {
    planned: { controlPlane: planned.controlPlane, workers: planned.workers },
    measured: { controlPlane: twin.controlPlane, workers: twin.workers },
    agree: planned.controlPlane === twin.controlPlane && planned.workers === twin.workers,
    plannedSteps: planned.steps,
    plannedProcesses: planned.processes,
    twin,
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const rke2 = rke2Planned();
  const journeys = {
    rke2: {
      from: 'v1.26.15+rke2r1',
      to: '1.33',
      ...sideBySide(rke2.uproot, await measured('rke2-intree', '1.33')),
    },
    rke: {
      from: 'v1.26.15-rancher1-1',
      to: '1.31',
      ...sideBySide(rkePlanned(), await measured('rke-intree', '1.31')),
    },
    kubeadm: {
      from: 'v1.26.15',
      to: '1.33',
      ...sideBySide(kubeadmPlanned(), await measured('kubeadm-intree', '1.33')),
    },
  };
  return {
    countingRule:
      'per machine, its most restarted Kubernetes process (rke2-server/agent per new restart stamp; rke up runs that restart a container; kubelet and each static pod per new definition); additionalManifest restarts nothing (Rancher: Dynamic file, left out of restartStamp)',
    ...journeys,
    allAgree: Object.values(journeys).every((j) => j.agree),
    rke2NaiveRunbook: {
      planned: { controlPlane: rke2.naive.controlPlane, workers: rke2.naive.workers },
      rancherRollouts: rke2.naive.rancherRollouts,
      steps: rke2.naive.steps,
    },
    rke2UprootRancherRollouts: rke2.uproot.rancherRollouts,
  };
}

/** Rancher's rollouts of uproot's RKE2 journey to 1.33, from the plan (bench/demo.bench.ts compares the twin's). */
export function rke2Rollouts(): { controlPlane: number; workers: number } {
  return rke2Planned().uproot.rancherRollouts;
}
