import { describe, expect, it } from 'vitest';
import { tierConcurrency } from './rke2-planner.js';

// rancher/rancher pkg/capr/planner/planner.go calculateConcurrency: "" → 1, a number as is (0: no limit),
// a percentage of the tier's machines rounded up.
describe('tierConcurrency', () => {
  const strategy = (s: Record<string, string>) => ({ upgradeStrategy: s });
  it('rolls one control-plane machine at a time by default and when set to "1"', () => {
    expect(tierConcurrency({}, 'controlPlaneConcurrency', 3)).toBe(1);
    expect(tierConcurrency(strategy({ controlPlaneConcurrency: '1' }), 'controlPlaneConcurrency', 3)).toBe(1);
  });
  it('takes a number, a percentage rounded up, and 0 as no limit', () => {
    expect(tierConcurrency(strategy({ controlPlaneConcurrency: '2' }), 'controlPlaneConcurrency', 3)).toBe(2);
    expect(tierConcurrency(strategy({ workerConcurrency: '34%' }), 'workerConcurrency', 3)).toBe(2);
    expect(tierConcurrency(strategy({ controlPlaneConcurrency: '0' }), 'controlPlaneConcurrency', 3)).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});
