import { describe, expect, it } from 'vitest';
import { InputError } from 'uproot';
import { DEFAULT_FAULTS, anyFaults, faultsSchema, parseFaultsFlag } from './fault-spec.js';
import { parseScenario } from './load-scenario.js';

function refusal(value: string): InputError {
  try {
    parseFaultsFlag(value);
  } catch (e) {
    return e as InputError;
  }
  throw new Error(`expected ${value} to be refused`);
}

describe('--faults SPEC', () => {
  it('no value and `default` are the documented default mix', () => {
    const mix = faultsSchema.parse(DEFAULT_FAULTS);
    expect(parseFaultsFlag(true)).toEqual(mix);
    expect(parseFaultsFlag('default')).toEqual(mix);
    expect(mix).toMatchObject({
      api: {
        errors: { rate: 0.01, codes: [500, 503] },
        throttle: { rate: 0.01, retryAfterSeconds: 1 },
        latency: { ms: 2, jitterMs: 3 },
        dropWatches: { everySeconds: 120 },
      },
      nodeNotReady: { seconds: 60 },
      ccmCrashLoop: { restarts: 2 },
      aws: { throttle: { rate: 0.05 } },
    });
  });

  it('items override the mix in order; rates as shares or percentages', () => {
    const f = parseFaultsFlag('default,aws-throttle=20%,api-errors=0.5,seed=7,ccm-crashloop=3');
    expect(f.aws.throttle).toEqual({ rate: 0.2 });
    expect(f.api.errors?.rate).toBe(0.5);
    expect(f.seed).toBe(7);
    expect(f.ccmCrashLoop).toEqual({ restarts: 3 });
    expect(parseFaultsFlag('api-latency=20+5').api.latency).toEqual({ ms: 20, jitterMs: 5 });
    expect(parseFaultsFlag('api-throttle=2%,retry-after=5').api.throttle).toEqual({ rate: 0.02, retryAfterSeconds: 5 });
    expect(anyFaults(parseFaultsFlag('none'))).toBe(false);
    expect(anyFaults(parseFaultsFlag('default,none,node-notready=30s'))).toBe(true);
  });

  it.each([
    ['api-erors=1%', '"api-erors" is not a fault'],
    ['aws-throttle=150%', 'a rate is from 0 to 1'],
    ['ccm-crashloop', 'ccm-crashloop needs a value'],
    ['ccm-crashloop=0', 'ccmCrashLoop.restarts'],
    ['node-notready=soon', 'seconds must be a number'],
    ['', 'is empty'],
  ])('refuses %j with a located error (%s)', (value, what) => {
    const e = refusal(value);
    expect(e).toBeInstanceOf(InputError);
    expect(e.code).toBe('UP-SANDBOX-FAULTS');
    expect(e.message).toContain(what);
    expect(e.location).toEqual({ field: '--faults', value: value.trim() });
  });

  it('a scenario carries the same object under `faults:`', () => {
    const s = parseScenario({
      name: 'f',
      description: 'faults',
      distribution: 'none',
      faults: { api: { throttle: { rate: 0.1 } }, ccmCrashLoop: { restarts: 1 } },
    });
    expect(s.faults?.api.throttle).toEqual({ rate: 0.1, retryAfterSeconds: 1 });
    expect(() =>
      parseScenario({ name: 'f', description: 'd', distribution: 'none', faults: { api: { errors: { rate: 2 } } } }),
    ).toThrow(/faults\.api\.errors\.rate/);
  });
});
