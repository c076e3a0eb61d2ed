/** How plans describe an upgrade journey past the migration (text and runbook). */
import type { MigrationPlan } from './plan-types.js';

/** On a journey past the migration: where the migration lands and each hop after it; undefined otherwise. */
export function journeyLine(plan: MigrationPlan): string | undefined {
  const upgrades = plan.kubernetes.upgrades ?? [];
  if (upgrades.length < 2) return undefined;
  const [migration, ...hops] = upgrades;
  return `Journey: migrate with the upgrade to ${migration!.version}, then ${hops.map((h) => h.version).join(' → ')} (one minor per step; each hop is gated on the whole cluster running it, and none is rolled back: Kubernetes does not downgrade)`;
}
