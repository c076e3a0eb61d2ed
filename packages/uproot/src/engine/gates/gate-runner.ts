/**
 * Runs one gate to its verdict: reads its snapshot, judges it, waits with backoff until its (scaled)
 * deadline. Every look also lists the kube-system leases once, so the journal's lease timeline records each
 * holder change of the managers' leases and the migration lease while the migration runs.
 */
import type { Clock, Random } from '../../clock/index.js';
import type { Gate, PlanStep, StepId } from '../../core/model/plan-types.js';
import type { EventSink } from '../events.js';
import type { Journal, LeaseRecord } from '../journal/journal-schema.js';
import type { GateRun } from '../run-plan.js';
import { evaluateGate, gateTimeoutSeconds, readGateSnapshot, type GateContext } from './evaluate-gate.js';
import type { GateReader, LeaseFacts } from './gate-facts.js';
import { LEASE_NAMESPACE } from '../../core/ownership/index.js';
import type { OwnershipInference } from '../../core/ownership/index.js';
import { waitForGate, type Backoff } from './wait-for-gate.js';

export const DEFAULT_MIGRATION_LEASE = 'cloud-provider-extraction-migration';

export interface GateRunnerOptions {
  readonly reader: GateReader;
  readonly clock: Clock;
  readonly context: Omit<GateContext, 'timeline' | 'baseline' | 'inference' | 'history'>;
  /** Multiplies every gate's timeoutSeconds (--gate-timeout-scale). */
  readonly timeoutScale?: number;
  readonly inference?: OwnershipInference;
  readonly random?: Random;
  readonly backoff?: Backoff;
  readonly signal?: AbortSignal;
  readonly notify?: EventSink;
}

/** Lease names worth a timeline: both managers' main leases and every migration lease the plan names. */
export function watchedLeases(journal: Journal): Set<string> {
  const names = new Set(['kube-controller-manager', 'cloud-controller-manager', DEFAULT_MIGRATION_LEASE]);
  for (const step of journal.plan.steps) {
    for (const gate of step.gates) if (gate.type === 'migration-lease-held') names.add(gate.leaseName);
  }
  return names;
}

export function leaseRecordsOf(
  leases: readonly LeaseFacts[],
  watched: ReadonlySet<string>,
  now: number,
  step?: StepId,
): LeaseRecord[] {
  return leases
    .filter((l) => watched.has(l.name))
    .map((l) => ({
      namespace: l.namespace,
      name: l.name,
      holder: l.holderIdentity ?? '',
      observedAt: new Date(now).toISOString(),
      ...(l.acquireTime ? { acquireTime: l.acquireTime } : {}),
      ...(l.renewTime ? { renewTime: l.renewTime } : {}),
      ...(l.leaseDurationSeconds !== undefined ? { leaseDurationSeconds: l.leaseDurationSeconds } : {}),
      ...(l.leaseTransitions !== undefined ? { transitions: l.leaseTransitions } : {}),
      ...(step ? { step } : {}),
    }));
}

export function createGateRunner(options: GateRunnerOptions) {
  return async (input: {
    readonly step: PlanStep;
    readonly gate: Gate;
    readonly journal: Journal;
  }): Promise<GateRun> => {
    const { gate, journal, step } = input;
    const watched = watchedLeases(journal);
    const observations: LeaseRecord[] = [];
    const timeout = gateTimeoutSeconds(gate);
    const timeoutMs = timeout === undefined ? undefined : timeout * 1000 * (options.timeoutScale ?? 1);
    options.notify?.({
      type: 'gate-started',
      step: step.id,
      gate,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
    let lastReason = '';
    const started = options.clock.now();
    const look = async () => {
      const now = options.clock.now();
      try {
        observations.push(
          ...leaseRecordsOf(await options.reader.leases(LEASE_NAMESPACE), watched, now, step.id),
        );
      } catch {
        // The timeline is best effort; the gate's own read reports real trouble.
      }
      const ctx: GateContext = {
        ...options.context,
        baseline: journal.baseline.loadBalancers,
        timeline: [...journal.leaseTimeline, ...observations],
        history: journal,
        step: step.id,
        ...(options.inference ? { inference: options.inference } : {}),
      };
      const snapshot = await readGateSnapshot(gate, options.reader, ctx);
      return evaluateGate(gate, snapshot, ctx, options.clock.now());
    };
    const result = await waitForGate(look, {
      clock: options.clock,
      timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.random ? { random: options.random } : {}),
      ...(options.backoff ? { backoff: options.backoff } : {}),
      onVerdict: (verdict) => {
        if (verdict.type !== 'wait') return;
        const waited = {
          step: step.id,
          gate,
          reason: verdict.reason,
          elapsedMs: options.clock.now() - started,
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        };
        if (verdict.reason !== lastReason) {
          lastReason = verdict.reason;
          options.notify?.({ type: 'gate-waiting', ...waited });
        } else {
          options.notify?.({ type: 'gate-pulse', ...waited });
        }
      },
    });
    return { result, observations };
  };
}
