import { describe, expect, it } from 'vitest';
import { ExitCode, InputError, InternalError, UprootError } from '../errors/index.js';
import { sharedOutcomeExitCode } from './run-outcomes.js';
import { asUprootError, isAbort } from './run-plan.js';
import { journalFor, plan } from './testing/plan-fixtures.js';

const journal = journalFor(plan([]));

describe('sharedOutcomeExitCode', () => {
  it('fails for a gate or a person, aborts on interruption, and keeps a thrown error’s own code', () => {
    const gate = { type: 'no-ownership-overlap' } as const;
    const failed = { type: 'failed', reason: 'r', fix: 'f' } as const;
    expect(
      sharedOutcomeExitCode({ type: 'gate-failed', step: 'install-ccm', gate, result: failed, journal }),
    ).toBe(ExitCode.failed);
    expect(
      sharedOutcomeExitCode({
        type: 'waiting-for-person',
        step: 'install-ccm',
        instructions: 'do it',
        journal,
      }),
    ).toBe(ExitCode.failed);
    expect(sharedOutcomeExitCode({ type: 'interrupted', journal })).toBe(ExitCode.aborted);
    const bad = new InputError('UP-TEST', 'bad input');
    expect(sharedOutcomeExitCode({ type: 'undo-failed', step: 'install-ccm', error: bad, journal })).toBe(
      bad.exitCode,
    );
    const bug = new InternalError('a bug');
    expect(sharedOutcomeExitCode({ type: 'apply-failed', step: 'install-ccm', error: bug, journal })).toBe(
      bug.exitCode,
    );
    expect(bad.exitCode).not.toBe(bug.exitCode);
  });
});

describe('isAbort and asUprootError', () => {
  it('treats the signal’s reason and foreign errors after an abort as the abort, never a typed error', () => {
    const controller = new AbortController();
    expect(isAbort(new Error('socket closed'), controller.signal)).toBe(false);
    controller.abort();
    expect(isAbort(controller.signal.reason, controller.signal)).toBe(true);
    expect(isAbort(new Error('socket closed'), controller.signal)).toBe(true);
    expect(isAbort(new InputError('UP-TEST', 'bad input'), controller.signal)).toBe(false);
  });

  it('keeps typed errors and wraps anything else as an internal error', () => {
    const typed = new InputError('UP-TEST', 'bad input');
    expect(asUprootError(typed)).toBe(typed);
    const wrapped = asUprootError(new TypeError('x is undefined'));
    expect(UprootError.is(wrapped) && wrapped.message).toBe('unexpected error: x is undefined');
  });
});
