/**
 * `promise-kept`: over the step's window (its start to the look), no controller ran in two managers at once
 * and none was without a leader past its bound. The figures and the bound are the core's
 * (core/ownership/promise-figures.ts, promise-bound.ts); the gate words them. A breach is history: looking
 * again cannot undo it, so it fails at once.
 */
import {
  promiseBreaches,
  promiseFigures,
  type LeaseRecord,
  type MigrationHistory,
  type ControllerPromise,
  type OwnershipEvidence,
  type PromiseBreach,
} from '../../core/ownership/index.js';
import type { StepId } from '../../core/model/plan-types.js';
import { fail, pass, type GateVerdict } from './gate-verdict.js';

export interface PromiseGateInput {
  readonly timeline: readonly LeaseRecord[];
  readonly evidence: OwnershipEvidence;
  readonly step?: StepId;
  /** Breaches that ended by then were acknowledged (`uproot migrate --resume --accept-gap`). */
  readonly acceptedUntil?: number;
}

/** The step's window: from when it started (its journal record) to now; the whole timeline without one. */
export function stepWindow(
  history: MigrationHistory | undefined,
  step: StepId | undefined,
  now: number,
): { from: number; to: number } | undefined {
  const record = history?.steps.find((s) => s.id === step);
  if (!record || record.state === 'pending') return undefined;
  const from = Date.parse(record.startedAt);
  return Number.isNaN(from) ? undefined : { from, to: now };
}

export function evaluatePromiseKept(input: PromiseGateInput): GateVerdict {
  const { evidence, step } = input;
  const window = stepWindow(evidence.history, step, evidence.now);
  const figures = promiseFigures(input.timeline, evidence, window);
  if (!figures) return pass('no lease observations to judge');
  // promise-kept stops on gaps; overlap is the no-ownership-overlap gate's (overlaps.ts, on the steps where
  // managers change hands): the figures' own overlap reading lets a holder live until the next look, which
  // across the gaps between runs (--until, a kill) reads a handover as an overlap that never was.
  const gapsOnly = (list: PromiseBreach[]): PromiseBreach[] => list.filter((b) => b.kind === 'gap');
  const all = gapsOnly(promiseBreaches(figures));
  const breaches = gapsOnly(promiseBreaches(figures, input.acceptedUntil));
  const accepted = all.length - breaches.length;
  const where = step ? ` during step ${step}` : '';
  if (breaches.length > 0) {
    const fix =
      `look at why (${causeOf(breaches[0]!)}); the breach stays in the journal: go on past it with ` +
      '`uproot migrate --resume --accept-gap` (with the run\u2019s target flags), or undo with `uproot rollback`';
    return fail(`promise broken${where}: ${breaches.map(describeBreach).join('; ')}`, fix);
  }
  const ran = figures.controllers.filter((c) => c.ran);
  // Nothing ran yet (a first step, before any manager's lease was seen): say so rather than a bound of 0 s.
  if (ran.length === 0) return pass(`nothing to judge${where}: no controller held a lease in the window yet`);
  const widest = Math.max(0, ...ran.map((c) => c.maxGapSeconds));
  return pass(
    `promise kept${where}: no overlap; largest gap ${widest} s (bound ${Math.max(...ran.map((c) => c.bound.seconds))} s) over ${ran.length} controller(s)${accepted > 0 ? `; ${accepted} earlier breach(es) accepted` : ''}${unwatchedNote(ran)}`,
  );
}

/** Handovers no uproot process watched are said, never passed over in silence: they were not judged. */
function unwatchedNote(ran: readonly ControllerPromise[]): string {
  const unwatched = ran.filter((c) => c.unobservedGaps.length > 0);
  if (unwatched.length === 0) return '';
  const longest = Math.max(...unwatched.flatMap((c) => c.unobservedGaps.map((g) => g.to - g.from)));
  return `; not judged: handovers of ${unwatched.map((c) => c.controller).join(', ')} while no uproot process was looking (at most ${Math.round(longest) / 1000} s by the leases)`;
}

/** One breach in words: the controller, the figure, the bound and when. */
export function describeBreach(b: PromiseBreach): string {
  const span = `${new Date(b.from).toISOString()} to ${new Date(b.to).toISOString()}`;
  if (b.kind === 'overlap')
    return `${b.controller} ran in ${b.identities.join(' and ')} at once for ${b.seconds} s (${span}); the bound for overlap is 0 s`;
  const { bound } = b;
  return `${b.controller} had no leader for ${b.seconds} s (${span}; at least ${Math.round(b.seconds * 1000 - 1000) / 1000} s by the leases), past its bound of ${bound.seconds} s (lease duration ${bound.leaseDurationSeconds} s + retry period ${bound.retryPeriodSeconds} s + ${bound.startAllowanceSeconds} s process start, from ${bound.basis === 'flags' ? 'the managers\u2019 flags' : 'the defaults'})`;
}

function causeOf(b: PromiseBreach): string {
  return b.kind === 'overlap'
    ? 'both managers\u2019 leader-migration configuration: `uproot leader-migration validate`'
    : 'did every replica of its manager restart at once? `kubectl get lease -n kube-system` and the managers\u2019 pods';
}
