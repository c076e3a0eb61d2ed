import type { Journal, StepRecord } from '../engine/journal/journal-schema.js';
import { controllerRows, type ControllerRow, type OwnershipReport } from '../core/ownership/index.js';
import { withImageTag } from '../core/model/index.js';

/** What a migration report shows, derived purely from the journal (and the ownership timeline when known). */
export interface ReportModel {
  readonly title: string;
  readonly generatedAt: string;
  readonly cluster: { readonly name: string; readonly distro: string };
  readonly kubernetes: { readonly current: string; readonly target: string };
  /** The steps that change the Kubernetes version, in order (a journey's hops), and where each stands. */
  readonly versions: readonly {
    readonly step: string;
    readonly version: string;
    readonly ccmTag: string;
    readonly state: StepRecord['state'];
  }[];
  readonly ccmImage: string;
  readonly verdict: 'completed' | 'failed' | 'in-progress' | 'rolled-back' | 'not-started';
  readonly steps: readonly ReportStep[];
  readonly loadBalancers: readonly { readonly service: string; readonly hostnames: readonly string[] }[];
  readonly ownership?: OwnershipReport;
  /**
   * Per controller, the rows every output prints (controllerRows): the migrated controllers first, each with
   * its state and, when it ran, the figures that prove the promise (overlap must be zero).
   */
  readonly controllers: readonly ControllerRow[];
}

export interface ReportStep {
  readonly id: string;
  readonly title: string;
  readonly state: StepRecord['state'];
  readonly startedAt?: number;
  readonly finishedAt?: number;
  readonly durationSeconds?: number;
  readonly gates: readonly ReportGate[];
  readonly failure?: { readonly reason: string; readonly fix: string };
}

export interface ReportGate {
  readonly type: string;
  readonly result: 'passed' | 'failed' | 'timed-out';
  readonly seconds: number;
  readonly detail: string;
}

export function buildReportModel(
  journal: Journal,
  options: {
    ownership?: OwnershipReport;
    /** The rows of the promise's figures from the lease observations; preferred over `ownership`'s. */
    rows?: readonly ControllerRow[];
    now: number;
  },
): ReportModel {
  const titles = new Map(journal.plan.steps.map((s) => [s.id, s.title]));
  const steps = journal.steps.map((record): ReportStep => {
    const title = titles.get(record.id) ?? record.id;
    if (record.state === 'pending') return { id: record.id, title, state: 'pending', gates: [] };
    const startedAt = Date.parse(record.startedAt);
    const finishedAt = finishTime(record);
    const gates = 'gates' in record ? record.gates.map(toGate) : [];
    return {
      id: record.id,
      title,
      state: record.state,
      startedAt,
      finishedAt,
      durationSeconds: finishedAt !== undefined ? round((finishedAt - startedAt) / 1000) : undefined,
      gates,
      failure: record.state === 'failed' ? { reason: record.reason, fix: record.fix } : undefined,
    };
  });
  const controllers = options.rows ?? (options.ownership ? controllerRows(options.ownership) : []);
  return {
    title: `uproot migration report: ${journal.cluster.name}`,
    generatedAt: new Date(options.now).toISOString(),
    cluster: journal.cluster,
    kubernetes: { current: journal.plan.kubernetes.current, target: journal.plan.kubernetes.target },
    versions: (journal.plan.kubernetes.upgrades ?? []).map((u) => ({
      ...u,
      state: journal.steps.find((s) => s.id === u.step)?.state ?? 'pending',
    })),
    // plan.ccm.image carries the install tag already: show the image the migration ends with.
    ccmImage: withImageTag(journal.plan.ccm.image, journal.plan.ccm.targetTag),
    verdict: verdictOf(journal),
    steps,
    loadBalancers: journal.baseline.loadBalancers.map((lb) => ({
      service: `${lb.namespace}/${lb.name}`,
      hostnames: lb.hostnames,
    })),
    ownership: options.ownership,
    controllers,
  };
}

function verdictOf(journal: Journal): ReportModel['verdict'] {
  const states = journal.steps.map((s) => s.state);
  if (journal.rollback?.completedAt) return 'rolled-back';
  if (states.includes('failed')) return 'failed';
  if (states.every((s) => s === 'pending')) return 'not-started';
  if (states.every((s) => s === 'verified')) return 'completed';
  return 'in-progress';
}

function finishTime(record: Exclude<StepRecord, { state: 'pending' }>): number | undefined {
  switch (record.state) {
    case 'verified':
      return Date.parse(record.verifiedAt);
    case 'failed':
      return Date.parse(record.failedAt);
    case 'rolled-back':
      return Date.parse(record.rolledBackAt);
    case 'applied':
    case 'verifying':
      return Date.parse(record.appliedAt);
    case 'applying':
      return undefined;
  }
}

function toGate(g: {
  gate: { type: string };
  startedAt: string;
  finishedAt: string;
  result: { type: 'passed' | 'failed' | 'timed-out' } & Record<string, unknown>;
}): ReportGate {
  const detail =
    g.result.type === 'passed'
      ? String(g.result.detail ?? '')
      : g.result.type === 'failed'
        ? `${String(g.result.reason)} (fix: ${String(g.result.fix)})`
        : `${String(g.result.last)} (fix: ${String(g.result.fix)})`;
  return {
    type: g.gate.type,
    result: g.result.type,
    seconds: round((Date.parse(g.finishedAt) - Date.parse(g.startedAt)) / 1000),
    detail,
  };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
