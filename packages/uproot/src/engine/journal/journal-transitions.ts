/**
 * State transitions of the journal as pure functions: each takes a journal and returns a new one. The engine
 * saves the result before acting on it (intent first), which is what makes a crash at any point resumable.
 * An impossible transition is a bug in uproot, so it throws an InternalError.
 */
import { InternalError } from '../../errors/index.js';
import { appendLeaseLooks } from '../../core/ownership/index.js';
import type { MigrationPlan, StepId } from '../../core/model/plan-types.js';
import {
  JOURNAL_SCHEMA_VERSION,
  type BackupEntry,
  type ChangeRecord,
  type GateRecord,
  type Journal,
  type JournalLocation,
  type LeaseRecord,
  type LoadBalancerRecord,
  type RunRecord,
  type StepRecord,
  type WorkRecord,
} from './journal-schema.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** Oldest lease observations are dropped beyond this, so the timeline key stays small. */
export const LEASE_TIMELINE_LIMIT = 400;
const RUN_HISTORY_LIMIT = 50;

export interface NewJournalInput {
  readonly plan: MigrationPlan;
  readonly location: JournalLocation;
  readonly run: RunRecord;
  readonly loadBalancers: readonly LoadBalancerRecord[];
  readonly now: number;
}

export function createJournal(input: NewJournalInput): Journal {
  const at = iso(input.now);
  return {
    schemaVersion: JOURNAL_SCHEMA_VERSION,
    cluster: { name: input.plan.cluster.name, distro: input.plan.distro },
    location: input.location,
    revision: 0,
    createdAt: at,
    updatedAt: at,
    plan: input.plan,
    runs: [input.run],
    baseline: { recordedAt: at, loadBalancers: [...input.loadBalancers] },
    steps: input.plan.steps.map((s) => ({ id: s.id, state: 'pending' as const })),
    leaseTimeline: [],
  };
}

export function stepRecordOf(journal: Journal, id: StepId): StepRecord {
  const record = journal.steps.find((s) => s.id === id);
  if (!record)
    throw new InternalError(`step ${id} is not in the journal; this should not happen, please report it`);
  return record;
}

function replaceStep(journal: Journal, record: StepRecord, now: number): Journal {
  return {
    ...journal,
    updatedAt: iso(now),
    steps: journal.steps.map((s) => (s.id === record.id ? record : s)),
  };
}

function invalid(record: StepRecord, transition: string): never {
  throw new InternalError(
    `cannot ${transition} step ${record.id} in state ${record.state}; this should not happen, please report it`,
  );
}

function workOf(
  record: StepRecord,
): Pick<WorkRecord, 'id' | 'startedAt' | 'backups' | 'changes'> | undefined {
  if (record.state === 'pending') return undefined;
  return { id: record.id, startedAt: record.startedAt, backups: record.backups, changes: record.changes };
}

/**
 * Intent to change: the step goes to `applying` with the backups of everything it will touch. A step that was
 * already applying (crash) or failed while applying keeps its first backups and the changes it finished:
 * re-reading "backups" from a half-changed cluster would record the new state as the old one.
 */
export function beginApply(
  journal: Journal,
  id: StepId,
  backups: readonly BackupEntry[],
  now: number,
): Journal {
  const record = stepRecordOf(journal, id);
  if (record.state === 'pending' || record.state === 'rolled-back') {
    return replaceStep(
      journal,
      { id, state: 'applying', startedAt: iso(now), backups: [...backups], changes: [] },
      now,
    );
  }
  if (record.state === 'applying' || (record.state === 'failed' && record.phase === 'apply')) {
    const work = workOf(record)!;
    // Targets first seen now (e.g. a change that failed before its backup) get their backup added.
    const known = new Set(work.backups.map((b) => b.change));
    const merged = [...work.backups, ...backups.filter((b) => !known.has(b.change))];
    return replaceStep(journal, { ...work, state: 'applying', backups: merged }, now);
  }
  return invalid(record, 'begin applying');
}

export function recordChange(journal: Journal, id: StepId, change: ChangeRecord, now: number): Journal {
  const record = stepRecordOf(journal, id);
  if (record.state !== 'applying') return invalid(record, 'record a change of');
  const changes = [...record.changes.filter((c) => c.change !== change.change), change].sort(
    (a, b) => a.change - b.change,
  );
  return replaceStep(journal, { ...record, changes }, now);
}

export function finishApply(journal: Journal, id: StepId, now: number): Journal {
  const record = stepRecordOf(journal, id);
  if (record.state !== 'applying') return invalid(record, 'finish applying');
  return replaceStep(journal, { ...workOf(record)!, state: 'applied', appliedAt: iso(now) }, now);
}

/** Gates start (again) from scratch: results of an earlier, interrupted verification are not reused. */
export function beginVerify(journal: Journal, id: StepId, now: number): Journal {
  const record = stepRecordOf(journal, id);
  const appliedAt =
    record.state === 'applied' || record.state === 'verifying'
      ? record.appliedAt
      : record.state === 'failed' && record.phase === 'verify'
        ? record.failedAt
        : invalid(record, 'begin verifying');
  return replaceStep(journal, { ...workOf(record)!, state: 'verifying', appliedAt, gates: [] }, now);
}

export function recordGate(journal: Journal, id: StepId, gate: GateRecord, now: number): Journal {
  const record = stepRecordOf(journal, id);
  if (record.state !== 'verifying') return invalid(record, 'record a gate of');
  return replaceStep(journal, { ...record, gates: [...record.gates, gate] }, now);
}

export function finishVerify(journal: Journal, id: StepId, now: number): Journal {
  const record = stepRecordOf(journal, id);
  if (record.state !== 'verifying') return invalid(record, 'finish verifying');
  return replaceStep(journal, { ...record, state: 'verified', verifiedAt: iso(now) }, now);
}

export interface StepFailure {
  readonly phase: 'apply' | 'verify';
  readonly code: string;
  readonly reason: string;
  readonly fix: string;
}

export function failStep(journal: Journal, id: StepId, failure: StepFailure, now: number): Journal {
  const record = stepRecordOf(journal, id);
  const work = workOf(record);
  if (!work) return invalid(record, 'fail');
  const gates = record.state === 'verifying' || record.state === 'failed' ? record.gates : [];
  return replaceStep(journal, { ...work, state: 'failed', failedAt: iso(now), gates, ...failure }, now);
}

export function markRolledBack(
  journal: Journal,
  id: StepId,
  gates: readonly GateRecord[],
  now: number,
): Journal {
  const record = stepRecordOf(journal, id);
  const work = workOf(record);
  if (!work) return invalid(record, 'mark rolled back');
  return replaceStep(
    journal,
    { ...work, state: 'rolled-back', rolledBackAt: iso(now), gates: [...gates] },
    now,
  );
}

export function addRun(journal: Journal, run: RunRecord, now: number): Journal {
  return { ...journal, updatedAt: iso(now), runs: [...journal.runs, run].slice(-RUN_HISTORY_LIMIT) };
}

export function startRollback(journal: Journal, now: number): Journal {
  if (journal.rollback && !journal.rollback.completedAt) return journal;
  return { ...journal, updatedAt: iso(now), rollback: { startedAt: iso(now) } };
}

export function setUndoing(journal: Journal, id: StepId | undefined, now: number): Journal {
  if (!journal.rollback)
    throw new InternalError('no rollback in progress; this should not happen, please report it');
  const { undoing: _previous, ...rest } = journal.rollback;
  return { ...journal, updatedAt: iso(now), rollback: id ? { ...rest, undoing: id } : rest };
}

/** `stoppedAt`: the started upgrade the rollback stopped before (Kubernetes does not downgrade). */
export function completeRollback(journal: Journal, now: number, stoppedAt?: StepId): Journal {
  if (!journal.rollback)
    throw new InternalError('no rollback in progress; this should not happen, please report it');
  const { undoing: _previous, ...rest } = journal.rollback;
  return {
    ...journal,
    updatedAt: iso(now),
    rollback: { ...rest, completedAt: iso(now), ...(stoppedAt ? { stoppedAt } : {}) },
  };
}

/**
 * Appends holder changes (core/ownership's appendLeaseLooks: a renewal by the same holder only moves its
 * record's lastRenewTime), keeping the newest entries.
 */
export function appendLeaseRecords(
  journal: Journal,
  observations: readonly LeaseRecord[],
  now: number,
): Journal {
  const { timeline, changed } = appendLeaseLooks(journal.leaseTimeline, observations);
  if (!changed) return journal;
  return { ...journal, updatedAt: iso(now), leaseTimeline: timeline.slice(-LEASE_TIMELINE_LIMIT) };
}

/** Where the migration stands, for status and for the decision to resume. */
export type JournalPhase =
  | { type: 'not-started' }
  | { type: 'in-progress'; step: StepId; state: StepRecord['state'] }
  | { type: 'completed' }
  | { type: 'rolling-back'; undoing?: StepId }
  /** `stoppedAt`: the rollback stopped before this started upgrade; the steps up to it stay applied. */
  | { type: 'rolled-back'; stoppedAt?: StepId };

export function journalPhase(journal: Journal): JournalPhase {
  if (journal.rollback) {
    return journal.rollback.completedAt
      ? {
          type: 'rolled-back',
          ...(journal.rollback.stoppedAt ? { stoppedAt: journal.rollback.stoppedAt } : {}),
        }
      : { type: 'rolling-back', ...(journal.rollback.undoing ? { undoing: journal.rollback.undoing } : {}) };
  }
  const open = journal.steps.find((s) => s.state !== 'verified');
  if (!open) return { type: 'completed' };
  if (journal.steps.every((s) => s.state === 'pending')) return { type: 'not-started' };
  return { type: 'in-progress', step: open.id, state: open.state };
}
