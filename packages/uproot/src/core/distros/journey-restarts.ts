/**
 * The restarts a plan causes, per process of a machine, counted from the plan's --out artifacts with the rule
 * of each distribution (the twin counts what happened by the same rule, packages/sandbox/src/twin/nodes/
 * restart-count.ts; bench/journey.bench.ts prints both):
 *
 * - RKE2: a machine's rke2-server/agent restarts when Rancher's plan for it gets a new restart stamp: its
 *   effective config (machineGlobalConfig + matching machineSelectorConfig) or spec.kubernetesVersion changed.
 *   additionalManifest reaches the servers as addons.yaml, a Dynamic file (rancher/rancher pkg/capr/planner
 *   manifests.go getAddons) that config.go restartStamp leaves out: Rancher rolls the tier through it, but
 *   nothing restarts.
 * - RKE: `rke up` restarts on a host the containers whose configuration changed (rancher/rke
 *   services/controlplane.go and workerplane.go through docker.DoRunContainer, which replaces a container only
 *   when IsContainerUpgradable finds its image, args or binds changed): the control plane when
 *   kubernetes_version, cloud_provider or a service's settings changed, the workers when the version, the
 *   provider, the kubelet's or kube-proxy's settings did.
 * - kubeadm: each static pod restarts when its manifest changes (the kubelet watches
 *   /etc/kubernetes/manifests); kube-apiserver and the kubelets restart in the person's part of every
 *   version step. A pod started for the first time (the CCM's install) is no restart.
 *
 * A machine's count is its most restarted process, as on the twin.
 */
import { parse } from 'yaml';
import type { MigrationPlan } from '../model/plan-types.js';
import { rke2EffectiveConfig, rke2NodeKinds } from './rke2/index.js';
import { rkeConfigOf } from './rke/index.js';
import { deepEqual, type JsonRecord } from '../model/json-value.js';

export type Counts = Record<string, number>;

/** Restarts per role, each as counts per process, and the role's figure (its most restarted process). */
export interface PlannedRestarts {
  readonly controlPlane: number;
  readonly workers: number;
  readonly processes: { readonly controlPlane: Counts; readonly workers: Counts };
  /** Which step restarted what, in order. */
  readonly steps: readonly string[];
}

export interface Edit {
  readonly what: string;
  readonly before: JsonRecord;
  readonly after: JsonRecord;
}

const add = (counts: Counts, process: string): void => {
  counts[process] = (counts[process] ?? 0) + 1;
};
const most = (counts: Counts): number => Math.max(0, ...Object.values(counts));

function tally(
  edits: readonly Edit[],
  restarts: (edit: Edit) => { controlPlane: string[]; workers: string[] },
): PlannedRestarts {
  const cp: Counts = {};
  const workers: Counts = {};
  const steps: string[] = [];
  for (const edit of edits) {
    const r = restarts(edit);
    r.controlPlane.forEach((p) => add(cp, p));
    r.workers.forEach((p) => add(workers, p));
    const what = [
      r.controlPlane.length > 0 ? `control plane (${r.controlPlane.join(', ')})` : '',
      r.workers.length > 0 ? `workers (${r.workers.join(', ')})` : '',
    ].filter(Boolean);
    steps.push(`${edit.what}: ${what.join(' + ') || 'no restart'}`);
  }
  return {
    controlPlane: most(cp),
    workers: most(workers),
    processes: { controlPlane: cp, workers },
    steps,
  };
}

/** The definition as it stands after each step that edits it, from the plan's --out artifacts. */
export function planEdits(plan: MigrationPlan, start: JsonRecord, file: string): Edit[] {
  const edits: Edit[] = [];
  let before = start;
  for (const step of plan.steps) {
    const artifact = plan.artifacts.find((a) => a.path.endsWith(`-${step.id}/${file}`));
    if (!artifact) continue;
    const after = parse(artifact.content) as JsonRecord;
    edits.push({ what: step.id, before, after });
    before = after;
  }
  return edits;
}

const spec = (c: JsonRecord): JsonRecord => c.spec as JsonRecord;

/** RKE2: restart stamp = effective config + version; additionalManifest left out. */
export function rke2Restarts(edits: readonly Edit[]): PlannedRestarts {
  return tally(edits, ({ before, after }) => {
    const version = spec(before).kubernetesVersion !== spec(after).kubernetesVersion;
    const kinds = rke2NodeKinds(after).filter((k) => k.description.startsWith('machine pool'));
    const server = (k: (typeof kinds)[number]) =>
      k.roles.includes('control-plane') || k.roles.includes('etcd');
    const changed = (pick: (k: (typeof kinds)[number]) => boolean): boolean =>
      kinds
        .filter(pick)
        .some((k) => !deepEqual(rke2EffectiveConfig(before, k.labels), rke2EffectiveConfig(after, k.labels)));
    return {
      controlPlane: version || changed(server) ? ['rke2-server'] : [],
      workers: version || changed((k) => !server(k)) ? ['rke2-agent'] : [],
    };
  });
}

/** Additional manifest edits roll the RKE2 control-plane tier without restarting it: Rancher's rollouts. */
export function rke2Rollouts(edits: readonly Edit[]): { controlPlane: number; workers: number } {
  const manifest = (c: JsonRecord) => (spec(c).rkeConfig as JsonRecord).additionalManifest;
  const restarts = edits.map((e) => rke2Restarts([e]));
  return {
    controlPlane: edits.filter(
      (e, i) => restarts[i]!.controlPlane > 0 || manifest(e.before) !== manifest(e.after),
    ).length,
    workers: restarts.filter((r) => r.workers > 0).length,
  };
}

const CONTROL_PLANE_SERVICES = ['etcd', 'kube-api', 'kube-controller', 'scheduler', 'kubelet', 'kubeproxy'];
const WORKER_SERVICES = ['kubelet', 'kubeproxy'];

/** RKE: an `rke up` restarts a host when its services' settings, the version or the provider changed. */
export function rkeRestarts(edits: readonly Edit[]): PlannedRestarts {
  return tally(edits, ({ before, after }) => {
    const b = rkeConfigOf(before);
    const a = rkeConfigOf(after);
    const common =
      b.kubernetes_version !== a.kubernetes_version || !deepEqual(b.cloud_provider, a.cloud_provider);
    const services = (names: string[]) =>
      names.some(
        (n) =>
          !deepEqual(
            (b.services as JsonRecord | undefined)?.[n],
            (a.services as JsonRecord | undefined)?.[n],
          ),
      );
    return {
      controlPlane: common || services(CONTROL_PLANE_SERVICES) ? ['rke up'] : [],
      workers: common || services(WORKER_SERVICES) ? ['rke up'] : [],
    };
  });
}

const STATIC_POD_FILES = {
  'kube-controller-manager.yaml': 'kube-controller-manager',
  'cloud-controller-manager.yaml': 'cloud-controller-manager',
} as const;

/**
 * kubeadm: the static-pod manifests uproot writes (from the artifacts), and the person's part of each version
 * step (plan.kubernetes.upgrades: kube-apiserver on the control plane, the kubelet everywhere).
 */
export function kubeadmRestarts(
  plan: MigrationPlan,
  initial: Readonly<Record<string, string>>,
): PlannedRestarts {
  const written = new Map<string, string>(Object.entries(initial));
  const versionSteps = new Set((plan.kubernetes.upgrades ?? []).map((u) => u.step));
  const edits: Edit[] = [];
  const processesOf = new Map<string, { controlPlane: string[]; workers: string[] }>();
  for (const step of plan.steps) {
    const controlPlane: string[] = [];
    const workers: string[] = [];
    if (versionSteps.has(step.id)) {
      controlPlane.push('kube-apiserver', 'kubelet');
      workers.push('kubelet');
    }
    for (const [file, process] of Object.entries(STATIC_POD_FILES)) {
      const artifact = plan.artifacts.find((a) => a.path.endsWith(`-${step.id}/${file}`));
      if (!artifact) continue;
      const previous = written.get(file);
      if (previous !== undefined && previous !== artifact.content) controlPlane.push(process);
      written.set(file, artifact.content);
    }
    if (controlPlane.length === 0 && workers.length === 0) continue;
    edits.push({ what: step.id, before: {}, after: {} });
    processesOf.set(step.id, { controlPlane, workers });
  }
  return tally(edits, (e) => processesOf.get(e.what)!);
}
