/**
 * What the plan and the journal say about each controller manager's configuration over time, for lease
 * holders whose pod is gone (replaced by a later step) or was never visible (RKE's docker containers).
 *
 * Each step that changes a manager opens a phase (from the step's start); a phase ends only when a later
 * step proves that every process runs the new configuration (a passed control-plane-flags gate for KCM, a
 * passed daemonset-rolled-out gate for the CCM). Without that proof, or once the later step is undone, the
 * phase stays possible: a holder is judged by every phase it may have started in, the most owning one winning.
 */
import { parseKubernetesVersion, type KubernetesVersion } from '../model/kubernetes-version.js';
import {
  decodeLeaderMigrationConfiguration,
  defaultLeaderMigrationConfiguration,
  MIGRATION_LEASE_NAME,
  type LeaderMigrationConfiguration,
  type ManagerComponent,
} from '../leader-migration/index.js';
import {
  isCcmUpgradeStepId,
  isUpgradeStepId,
  type GateType,
  type MigrationPlan,
  type StepId,
} from '../model/plan-types.js';
import type { ManagerProfile } from './lease-timeline.js';
import type { MigrationHistory, StepHistory } from './migration-history.js';

/**
 * A configuration a manager may run. `migrating` tells leader migration on with a configuration that is not
 * known (the profile then runs everything under the main lease) apart from migration off.
 */
export interface Candidate {
  readonly profile: ManagerProfile;
  readonly migrating: boolean;
}

/** One configuration a manager may have run, and when a process with it may have become a lease holder. */
export interface ConfigPhase {
  /** The step that introduced it, or `before` for the configuration the migration started from. */
  readonly source: StepId | 'before';
  /** Several versions or configuration files may apply. */
  readonly candidates: readonly Candidate[];
  /** Closed intervals; a second one when undoing the next step brought the configuration back. */
  readonly spans: readonly PhaseSpan[];
}

export interface PhaseSpan {
  readonly from: number;
  readonly to: number;
  /** The span ends when this step started (not when a gate proved a rollout): orders looks made at `to`. */
  readonly endsAtStartOf?: StepId;
}

/** Which step's gate made the look that first saw a holder, and the plan's step order. */
export interface LookOrder {
  readonly step: StepId;
  readonly steps: readonly StepId[];
}

/** A migration configuration, or `undefined` when it is not known (then every controller counts as non-migrated). */
export type PlannedConfig = LeaderMigrationConfiguration | undefined;

/** The migration lease the plan's gates name (the configurations' leaderName), or the default. */
export function migrationLeaseOf(plan: MigrationPlan | undefined): string {
  for (const step of plan?.steps ?? []) {
    for (const gate of step.gates) if (gate.type === 'migration-lease-held') return gate.leaseName;
  }
  return MIGRATION_LEASE_NAME;
}

/**
 * The LeaderMigrationConfiguration files the plan writes (kubeadm's /etc/leadermigration.conf), by node
 * path: every content a step or its undo puts there, since a node may hold any of them while the step rolls.
 */
export function plannedConfigFiles(plan: MigrationPlan): ReadonlyMap<string, LeaderMigrationConfiguration[]> {
  const cached = decodedFiles.get(plan);
  if (cached) return cached;
  const files = new Map<string, LeaderMigrationConfiguration[]>();
  for (const step of plan.steps) {
    for (const change of [...step.changes, ...step.undo.changes]) {
      if (change.type !== 'write-file' || !change.content.includes('LeaderMigrationConfiguration')) continue;
      try {
        const { config } = decodeLeaderMigrationConfiguration(change.content, { file: change.path });
        const list = files.get(change.path) ?? [];
        if (!list.some((c) => JSON.stringify(c) === JSON.stringify(config))) list.push(config);
        files.set(change.path, list);
      } catch {
        // Not a configuration the managers could read: they would not start with it, so it owns nothing.
      }
    }
  }
  decodedFiles.set(plan, files);
  return files;
}

/** Decoding is repeated for every holder otherwise; a plan never changes once journaled. */
const decodedFiles = new WeakMap<MigrationPlan, ReadonlyMap<string, LeaderMigrationConfiguration[]>>();

/**
 * The configurations a manager of `version` with migration enabled may use: the files the plan writes to
 * `path` (or to any path when the flag is unknown, for a phase), else the version's default when the plan
 * uses the default. Unknown (`[undefined]`) when neither applies.
 */
export function plannedConfigs(
  plan: MigrationPlan | undefined,
  version: KubernetesVersion,
  path: string | undefined,
): PlannedConfig[] {
  const files = plan ? plannedConfigFiles(plan) : new Map<string, LeaderMigrationConfiguration[]>();
  if (path !== undefined) return files.get(path) ?? [undefined];
  if (plan?.ccm.leaderMigrationConfig === 'explicit') {
    const all = [...files.values()].flat();
    return all.length > 0 ? all : [undefined];
  }
  return [defaultLeaderMigrationConfiguration(version)];
}

/** The Kubernetes versions the plan runs a manager at (KCM: current and target; CCM: its image tags). */
export function plannedVersions(
  plan: MigrationPlan | undefined,
  component: ManagerComponent,
): KubernetesVersion[] {
  if (!plan) return [];
  // A journey moves both managers through every hop's release (plan.kubernetes.upgrades).
  const upgrades = plan.kubernetes.upgrades ?? [];
  const raws =
    component === 'kube-controller-manager'
      ? [plan.kubernetes.current, plan.kubernetes.target, ...upgrades.map((u) => u.version)]
      : [plan.ccm.installTag, plan.ccm.targetTag, ...upgrades.map((u) => u.ccmTag)];
  return uniqueVersions(raws.flatMap((raw) => parsedVersion(raw) ?? []));
}

export function parsedVersion(raw: string): KubernetesVersion | undefined {
  try {
    return parseKubernetesVersion(raw);
  } catch {
    return undefined;
  }
}

export function uniqueVersions(versions: readonly KubernetesVersion[]): KubernetesVersion[] {
  const seen = new Set<string>();
  return versions.filter((v) => {
    const key = `${v.major}.${v.minor}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Every candidate of `versions` × configurations; `migrating: false` ignores the configurations. */
export function candidatesOf(
  versions: readonly KubernetesVersion[],
  cloudControllers: boolean,
  migrating: boolean,
  configsFor: (version: KubernetesVersion) => readonly PlannedConfig[],
): Candidate[] {
  return versions.flatMap((version) =>
    (migrating ? configsFor(version) : [undefined]).map((config) => ({
      profile: { version, cloudControllers, ...(config ? { migration: config } : {}) },
      migrating,
    })),
  );
}

interface PhaseSpec {
  readonly source: StepId;
  readonly candidates: readonly Candidate[];
}

const PROOF: Record<ManagerComponent, GateType> = {
  'kube-controller-manager': 'control-plane-flags',
  'cloud-controller-manager': 'daemonset-rolled-out',
};

/** The phases of one manager over the migration so far (steps not yet started open none). */
export function configPhases(history: MigrationHistory, component: ManagerComponent): ConfigPhase[] {
  const { plan } = history;
  const versions = plannedVersions(plan, component);
  const first = versions[0] ?? parsedVersion(plan.kubernetes.current) ?? parseKubernetesVersion('1.26');
  const configsFor = (v: KubernetesVersion): PlannedConfig[] => plannedConfigs(plan, v, undefined);
  const specs =
    component === 'kube-controller-manager' ? kcmSpecs(plan, configsFor) : ccmSpecs(plan, configsFor);
  const records = new Map(history.steps.map((r) => [r.id, r]));
  const startOf = (id: StepId): number | undefined => {
    const record = records.get(id);
    return record && record.state !== 'pending' ? Date.parse(record.startedAt) : undefined;
  };
  const rollbackStart = history.rollback ? Date.parse(history.rollback.startedAt) : NaN;
  const later = (id: StepId): StepHistory[] => {
    const index = plan.steps.findIndex((s) => s.id === id);
    return plan.steps.slice(index + 1).flatMap((s) => records.get(s.id) ?? []);
  };
  /**
   * When undoing a step began, if it was undone. Steps are undone last first, so after the later steps'
   * undo ended and after the rollback started; without either, the step's own start is the bound left.
   */
  const undoneFrom = (id: StepId, startedAt: number): number | undefined => {
    const record = records.get(id);
    const undoing = history.rollback?.undoing === id;
    if (!undoing && record?.state !== 'rolled-back') return undefined;
    const end = record?.state === 'rolled-back' ? Date.parse(record.rolledBackAt) : Infinity;
    const bounds = [
      rollbackStart,
      ...later(id).flatMap((r) => (r.state === 'rolled-back' ? [Date.parse(r.rolledBackAt)] : [])),
    ].filter((t) => !Number.isNaN(t) && t <= end);
    return bounds.length > 0 ? Math.max(...bounds) : startedAt;
  };
  /** When the step's proof gate passed; for an undone step (whose record lost it), when the next step began. */
  const provenAt = (id: StepId): number => {
    const record = records.get(id);
    if (!record || record.state === 'pending') return Infinity;
    if (record.state !== 'rolled-back') {
      const gates = 'gates' in record ? record.gates : [];
      const proof = gates.find((g) => g.gate.type === PROOF[component] && g.result.type === 'passed');
      return proof ? Date.parse(proof.finishedAt) : Infinity;
    }
    const planned = plan.steps.find((s) => s.id === id)?.gates.some((g) => g.type === PROOF[component]);
    const next = later(id).find((r) => r.state !== 'pending');
    return planned && next ? Date.parse(next.startedAt) : Infinity;
  };

  // Before the migration: KCM ran the in-tree provider; a CCM already there (if any) is judged without migration.
  const phases: ConfigPhase[] = [
    {
      source: 'before',
      candidates: [{ profile: { version: first, cloudControllers: true }, migrating: false }],
      spans: [{ from: -Infinity, to: Infinity }],
    },
  ];
  for (const spec of specs) {
    const from = startOf(spec.source);
    if (from === undefined) break;
    const previous = phases[phases.length - 1]!;
    // uproot replaces a CCM it finds when it installs its own, so a CCM seen after that is uproot's.
    const atStart = component === 'cloud-controller-manager' && previous.source === 'before';
    const closedAt = atStart ? Math.min(from, provenAt(spec.source)) : provenAt(spec.source);
    const reopened = undoneFrom(spec.source, from);
    const spans = previous.spans.map((span, i): PhaseSpan => {
      if (i !== previous.spans.length - 1) return span;
      const to = Math.min(span.to, closedAt);
      return atStart && to === from
        ? { from: span.from, to, endsAtStartOf: spec.source }
        : { from: span.from, to };
    });
    if (reopened !== undefined && !Number.isNaN(reopened)) spans.push({ from: reopened, to: Infinity });
    phases[phases.length - 1] = { ...previous, spans };
    phases.push({ source: spec.source, candidates: spec.candidates, spans: [{ from, to: Infinity }] });
  }
  return phases;
}

function kcmSpecs(plan: MigrationPlan, configsFor: (v: KubernetesVersion) => PlannedConfig[]): PhaseSpec[] {
  const current = parsedVersion(plan.kubernetes.current);
  const all = plannedVersions(plan, 'kube-controller-manager');
  const specs: PhaseSpec[] = [];
  for (const step of plan.steps) {
    const gate = step.gates.find((g) => g.type === 'control-plane-flags');
    if (gate?.type !== 'control-plane-flags') continue;
    const inTree = gate.expect.cloudProvider === 'aws';
    // The in-tree provider exists only up to 1.26, so an in-tree KCM runs the current version.
    const versions = inTree && current ? [current] : all;
    specs.push({
      source: step.id,
      candidates: candidatesOf(versions, inTree, gate.expect.kcmLeaderMigration, configsFor),
    });
  }
  return specs;
}

const CCM_MOVES: ReadonlySet<StepId> = new Set(['upgrade-kubernetes', 'roll-control-plane']);
const ccmMoves = (id: StepId): boolean => CCM_MOVES.has(id) || isUpgradeStepId(id) || isCcmUpgradeStepId(id);

function ccmSpecs(plan: MigrationPlan, configsFor: (v: KubernetesVersion) => PlannedConfig[]): PhaseSpec[] {
  const install = parsedVersion(plan.ccm.installTag);
  const all = plannedVersions(plan, 'cloud-controller-manager');
  const specs: PhaseSpec[] = [];
  let installed = false;
  let migration = false;
  for (const step of plan.steps) {
    if (step.id === 'install-ccm') {
      installed = true;
      migration = true;
      specs.push({
        source: step.id,
        candidates: candidatesOf(install ? [install] : all, true, true, configsFor),
      });
    } else if (installed && step.id === 'disable-leader-migration') {
      migration = false;
      specs.push({ source: step.id, candidates: candidatesOf(all, true, false, configsFor) });
    } else if (installed && ccmMoves(step.id) && all.length > 1) {
      specs.push({ source: step.id, candidates: candidatesOf(all, true, migration, configsFor) });
    }
  }
  return specs;
}

/**
 * The phases possible at `time` (both ends included: a holder seen at a proof may be either side). A span
 * that ends when a step started excludes a holder first seen at that very instant by a look of that step or a
 * later one: the look came after the step started, whatever the clock says (in virtual time a step's requests
 * take no time, so its start and the next step's looks share one instant).
 */
export function phasesAt(phases: readonly ConfigPhase[], time: number, look?: LookOrder): ConfigPhase[] {
  return phases.filter((p) =>
    p.spans.some((s) => s.from <= time && time <= s.to && !lookedAfterEnd(s, time, look)),
  );
}

function lookedAfterEnd(span: PhaseSpan, time: number, look: LookOrder | undefined): boolean {
  if (!look || !span.endsAtStartOf || time !== span.to) return false;
  const closing = look.steps.indexOf(span.endsAtStartOf);
  return closing >= 0 && look.steps.indexOf(look.step) >= closing;
}
