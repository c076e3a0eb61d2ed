import { describe, expect, it } from 'vitest';
import { syncJob, type PodView } from './job-sync.js';

const T0 = Date.UTC(2026, 0, 1);
const job = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}) => ({
  metadata: { name: 'uproot-a', namespace: 'uproot-system', uid: 'u1' },
  spec: {
    backoffLimit: 2,
    template: { spec: { containers: [{ name: 'migrate' }] } },
    podFailurePolicy: {
      rules: [
        { action: 'FailJob', onExitCodes: { containerName: 'migrate', operator: 'In', values: [1, 3] } },
      ],
    },
    ...spec,
  },
  status,
});
const pod = (name: string, phase: PodView['phase'], extra: Partial<PodView> = {}): PodView => ({
  name,
  uid: name,
  phase,
  terminating: false,
  tracked: true,
  ...extra,
});
const types = (status: Record<string, unknown>) =>
  (status.conditions as { type: string; status: string }[])
    .filter((c) => c.status === 'True')
    .map((c) => c.type);

describe('the twin’s Job controller, one sync at a time', () => {
  it('starts the first pod at once and sets startTime', () => {
    const sync = syncJob(job(), [], T0);
    expect(sync.createPod).toBe(true);
    expect(sync.status).toMatchObject({
      active: 1,
      succeeded: 0,
      failed: 0,
      startTime: new Date(T0).toISOString(),
    });
  });

  it('replaces a killed pod after 10 s, then 20 s, counting each failure once', () => {
    const killed = pod('p1', 'Failed', { exitCode: 137, finishedAt: T0 });
    const first = syncJob(job(), [killed], T0 + 1_000);
    expect(first).toMatchObject({ createPod: false, requeueAfterMs: 9_000, uncount: ['p1'] });
    expect(first.status.failed).toBe(1);
    // The finalizer is off now: counted once, and the backoff has passed.
    const later = syncJob(job({}, first.status), [{ ...killed, tracked: false }], T0 + 10_000);
    expect(later.createPod).toBe(true);
    const second = pod('p2', 'Failed', { exitCode: 137, finishedAt: T0 + 30_000 });
    const after = syncJob(job({}, later.status), [{ ...killed, tracked: false }, second], T0 + 31_000);
    expect(after).toMatchObject({ createPod: false, requeueAfterMs: 19_000 });
  });

  it('fails with BackoffLimitExceeded past backoffLimit, FailureTarget first', () => {
    const sync = syncJob(
      job({}, { failed: 2 }),
      [pod('p3', 'Failed', { exitCode: 137, finishedAt: T0 })],
      T0,
    );
    expect(types(sync.status)).toEqual(['FailureTarget', 'Failed']);
    expect(sync.status.conditions).toContainEqual(
      expect.objectContaining({
        type: 'Failed',
        reason: 'BackoffLimitExceeded',
        message: 'Job has reached the specified backoff limit',
      }),
    );
    expect(sync.createPod).toBe(false);
  });

  it('fails at once when podFailurePolicy says so, with upstream’s message', () => {
    const sync = syncJob(job(), [pod('p1', 'Failed', { exitCode: 1, finishedAt: T0 })], T0);
    expect(sync.status.conditions).toContainEqual(
      expect.objectContaining({
        type: 'Failed',
        reason: 'PodFailurePolicy',
        message:
          'Container migrate for pod uproot-system/p1 failed with exit code 1 matching FailJob rule at index 0',
      }),
    );
  });

  it('kills the running pod past activeDeadlineSeconds and waits for it to stop', () => {
    const started = { startTime: new Date(T0).toISOString() };
    const sync = syncJob(job({ activeDeadlineSeconds: 60 }, started), [pod('p1', 'Running')], T0 + 61_000);
    expect(sync.deletePods).toEqual(['p1']);
    expect(types(sync.status)).toEqual(['FailureTarget']);
    const gone = syncJob(
      job({ activeDeadlineSeconds: 60 }, sync.status),
      [pod('p1', 'Failed', { terminating: true, exitCode: 143 })],
      T0 + 62_000,
    );
    expect(types(gone.status)).toEqual(['FailureTarget', 'Failed']);
    expect(gone.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'Failed', reason: 'DeadlineExceeded' }),
    );
    expect(
      syncJob(job({ activeDeadlineSeconds: 60 }, started), [pod('p1', 'Running')], T0 + 30_000)
        .requeueAfterMs,
    ).toBe(30_000);
  });

  it('completes once its pod succeeded', () => {
    const sync = syncJob(job(), [pod('p1', 'Succeeded', { exitCode: 0 })], T0);
    expect(types(sync.status)).toEqual(['SuccessCriteriaMet', 'Complete']);
    expect(sync.status).toMatchObject({
      succeeded: 1,
      active: 0,
      completionTime: new Date(T0).toISOString(),
    });
  });

  it('holds a suspended Job, and restarts its deadline when resumed', () => {
    const held = syncJob(job({ suspend: true }), [], T0);
    expect(held.createPod).toBe(false);
    expect(held.status.startTime).toBeUndefined();
    expect(held.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'Suspended', status: 'True', reason: 'JobSuspended' }),
    );
    const resumed = syncJob(job({ activeDeadlineSeconds: 60 }, held.status), [], T0 + 3_600_000);
    expect(resumed.createPod).toBe(true);
    expect(resumed.status.startTime).toBe(new Date(T0 + 3_600_000).toISOString());
    expect(resumed.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'Suspended', status: 'False', reason: 'JobResumed' }),
    );
  });
});
