import { describe, expect, it } from 'vitest';
import { runChecks, outcomeOf, summarize } from './run-checks.js';
import { CHECK_IDS } from './check-result.js';
import { healthySnapshot } from './fixtures/healthy-snapshot.js';
import { withIamEvaluation as evaluated } from './evaluate-snapshot.js';

describe('runChecks', () => {
  it('passes every check on a healthy RKE2 cluster, in the documented order', async () => {
    const results = runChecks(await evaluated(healthySnapshot()));
    expect(results.map((r) => r.id)).toEqual([...CHECK_IDS]);
    for (const r of results)
      expect({ id: r.id, status: r.status, message: r.message }).toMatchObject({ status: 'pass' });
    expect(outcomeOf(results)).toBe('pass');
    expect(summarize(results)).toEqual({ fail: 0, warn: 0, skip: 0, pass: CHECK_IDS.length });
  });
});
