/**
 * Preflight failures a migration plan fixes itself: `uproot migrate` does not refuse on them when the plan
 * carries the step that fixes them (the step's gates then prove the fix), so a person need not do by hand
 * what the first step would do anyway.
 */
import type { MigrationPlan, StepId } from '../model/plan-types.js';
import type { CheckId } from './check-result.js';

const FIXED_BY: Partial<Record<CheckId, StepId>> = {
  'migration-lease-rbac': 'grant-migration-lease',
};

/** The plan step that fixes a failed check, or undefined when the person must fix it first. */
export function stepFixing(check: CheckId, plan: MigrationPlan): StepId | undefined {
  const step = FIXED_BY[check];
  return step && plan.steps.some((s) => s.id === step) ? step : undefined;
}
