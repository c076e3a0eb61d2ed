// How many Rancher rolls the journey from Kubernetes 1.26 to 1.33 on RKE2 takes, counted from plans, next to
// the naive sequence: migrate by seed 002 (same version), then seven separate upgrades, each with its own
// edits (the CCM re-pinned to the new minor, and before 1.33 the kube-apiserver cloud flags removed).
//
// Counting rule. Every edit of the provisioning Cluster is one rollout by Rancher. It rolls the control plane
// (server machines, one at a time) when it changes spec.kubernetesVersion, the effective RKE2 config of a
// control-plane or etcd machine (machineGlobalConfig + matching machineSelectorConfig), or
// spec.rkeConfig.additionalManifest (Rancher writes it to the servers as a non-"Minor" plan file:
// rancher/rancher pkg/capr/planner/manifests.go getAddons, planner.go's minor-change test). It rolls the
// workers when it changes spec.kubernetesVersion or a worker machine's effective config. Node restarts are the
// rolls times the machines of that kind in the example (machinePools quantity). Everything is computed from
// the Cluster objects the plans produce, with the same rule for both sequences.
//
// Run: `npx tsx bench/run.ts journey`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { parseKubernetesVersion } from '../packages/uproot/src/core/kubernetes-version/index.js';
import { upgradeStepId, type MigrationPlan } from '../packages/uproot/src/core/plan/plan-types.js';
import { stepOptionsFromPlan, type StepOptions } from '../packages/uproot/src/core/distros/distro.js';
import {
  removeArgs,
  rke2ApplyStep,
  rke2EffectiveConfig,
  rke2NodeKinds,
  rke2Planner,
} from '../packages/uproot/src/core/distros/rke2/index.js';
import { deepEqual, type JsonRecord } from '../packages/uproot/src/core/distros/shared/json-value.js';
import { newestRelease } from '../packages/uproot/src/core/distros/shared/releases.js';
import { ccmImageTagFor } from '../packages/uproot/src/core/ccm/index.js';

const EXAMPLE = fileURLToPath(new URL('../packages/uproot/examples/rke2-cluster.yaml', import.meta.url));
const TARGET = 'v1.33.5+rke2r1';

interface Rolls {
  readonly controlPlane: boolean;
  readonly workers: boolean;
}

interface Edit {
  readonly what: string;
  readonly before: JsonRecord;
  readonly after: JsonRecord;
}

const spec = (c: JsonRecord): JsonRecord => c.spec as JsonRecord;
const rkeConfig = (c: JsonRecord): JsonRecord => spec(c).rkeConfig as JsonRecord;

/** The machine pools of the example, by kind: servers (control plane or etcd) and workers. */
function pools(cluster: JsonRecord) {
  const kinds = rke2NodeKinds(cluster).filter((k) => k.description.startsWith('machine pool'));
  return {
    servers: kinds.filter((k) => k.roles.includes('control-plane') || k.roles.includes('etcd')),
    workers: kinds.filter((k) => !k.roles.includes('control-plane') && !k.roles.includes('etcd')),
  };
}

function rollsOf(edit: Edit): Rolls {
  const { before, after } = edit;
  const version = spec(before).kubernetesVersion !== spec(after).kubernetesVersion;
  const changed = (kinds: ReturnType<typeof pools>['servers']): boolean =>
    kinds.some(
      (k) => !deepEqual(rke2EffectiveConfig(before, k.labels), rke2EffectiveConfig(after, k.labels)),
    );
  const { servers, workers } = pools(after);
  return {
    controlPlane:
      version ||
      changed(servers) ||
      rkeConfig(before).additionalManifest !== rkeConfig(after).additionalManifest,
    workers: version || changed(workers),
  };
}

/** The Cluster as it stands after each step that edits it, from the plan's --out artifacts. */
function planEdits(plan: MigrationPlan, start: JsonRecord): Edit[] {
  const edits: Edit[] = [];
  let before = start;
  for (const step of plan.steps) {
    const artifact = plan.artifacts.find((a) => a.path.endsWith(`-${step.id}/rke2-cluster.yaml`));
    if (!artifact) continue;
    const after = parse(artifact.content) as JsonRecord;
    edits.push({ what: step.id, before, after });
    before = after;
  }
  return edits;
}

/** Seven separate upgrades after a same-version migration: version, then CCM, and the 1.33 flags first. */
function naiveUpgrades(migrated: JsonRecord, options: StepOptions): Edit[] {
  const edits: Edit[] = [];
  let current = migrated;
  for (let minor = 27; minor <= 33; minor++) {
    const version = minor === 33 ? TARGET : newestRelease('rke2', { major: 1, minor })!;
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

function tally(edits: readonly Edit[], machines: { servers: number; workers: number }) {
  const rolls = edits.map((e) => ({ edit: e.what, ...rollsOf(e) }));
  const controlPlaneRolls = rolls.filter((r) => r.controlPlane).length;
  const workerRolls = rolls.filter((r) => r.workers).length;
  return {
    clusterEdits: edits.length,
    controlPlaneRolls,
    workerRolls,
    nodeRestarts: controlPlaneRolls * machines.servers + workerRolls * machines.workers,
    edits: rolls.map(
      (r) =>
        `${r.edit}: ${[r.controlPlane ? 'control plane' : '', r.workers ? 'workers' : ''].filter(Boolean).join(' + ') || 'no roll'}`,
    ),
  };
}

function machineCounts(cluster: JsonRecord): { servers: number; workers: number } {
  const list = (rkeConfig(cluster).machinePools as JsonRecord[]) ?? [];
  const count = (pred: (p: JsonRecord) => boolean) =>
    list.filter(pred).reduce((n, p) => n + Number(p.quantity ?? 0), 0);
  return {
    servers: count((p) => p.controlPlaneRole === true || p.etcdRole === true),
    workers: count((p) => p.controlPlaneRole !== true && p.etcdRole !== true),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const file = { path: 'examples/rke2-cluster.yaml', text: readFileSync(EXAMPLE, 'utf8') };
  const def = rke2Planner.read([file]) as unknown as { cluster: JsonRecord };
  const start = def.cluster;
  const machines = machineCounts(start);

  const journey = rke2Planner.plan(rke2Planner.read([file]), { targetVersion: TARGET });
  const uproot = tally(planEdits(journey, start), machines);

  const sameVersion = rke2Planner.plan(rke2Planner.read([file]), {});
  const seed002 = planEdits(sameVersion, start);
  const naive = tally(
    [...seed002, ...naiveUpgrades(seed002.at(-1)!.after, stepOptionsFromPlan(sameVersion))],
    machines,
  );
  return {
    from: spec(start).kubernetesVersion,
    to: TARGET,
    machines,
    countingRule:
      'one Rancher rollout per Cluster edit: the control plane rolls when kubernetesVersion, a server machine\u2019s effective config or additionalManifest changes; the workers when kubernetesVersion or a worker\u2019s effective config changes; node restarts = rolls x machines of that kind',
    uproot,
    naive,
    saved: {
      controlPlaneRolls: naive.controlPlaneRolls - uproot.controlPlaneRolls,
      workerRolls: naive.workerRolls - uproot.workerRolls,
      nodeRestarts: naive.nodeRestarts - uproot.nodeRestarts,
    },
  };
}
