import { describe, expect, it } from 'vitest';
import { stepFixing } from './remedied-by-plan.js';
import type { MigrationPlan } from '../model/plan-types.js';

const plan = (ids: string[]): MigrationPlan =>
  ({ steps: ids.map((id) => ({ id })) }) as unknown as MigrationPlan;

describe('stepFixing', () => {
  it('lets the plan fix the migration-lease RBAC when it grants the lease', () => {
    expect(stepFixing('migration-lease-rbac', plan(['grant-migration-lease', 'install-ccm']))).toBe(
      'grant-migration-lease',
    );
  });
  it('does not excuse the failure when the plan has no such step, nor other checks', () => {
    expect(stepFixing('migration-lease-rbac', plan(['install-ccm']))).toBeUndefined();
    expect(stepFixing('cluster-tags', plan(['grant-migration-lease']))).toBeUndefined();
  });
});
