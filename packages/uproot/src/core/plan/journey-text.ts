/** How plans describe an upgrade journey past the migration (text and runbook). */
import { atLeast, parseKubernetesVersion } from '../model/kubernetes-version.js';
import type { MigrationPlan } from '../model/plan-types.js';

/**
 * On a journey past the migration: where the migration lands, each hop after it, and which version step carries
 * which change (docs/migrate.md, "The journey's restarts"); undefined otherwise.
 */
export function journeyLine(plan: MigrationPlan): string | undefined {
  const upgrades = plan.kubernetes.upgrades ?? [];
  if (upgrades.length < 2) return undefined;
  const [migration, ...hops] = upgrades;
  // kube-apiserver 1.33 removed --cloud-provider and --cloud-config (kubernetes/kubernetes#130162).
  const dropsFlags = upgrades.find((u) => atLeast(parseKubernetesVersion(u.version), 1, 33));
  return [
    `Journey: migrate with the upgrade to ${migration!.version}, then ${hops.map((h) => h.version).join(' \u2192 ')} (one minor per step; each hop is gated on the whole cluster running it, and none is rolled back: Kubernetes does not downgrade).`,
    `The switch to the external provider rides the upgrade to ${migration!.version} (${migration!.step}); every version step restarts each node once and moves the CCM to its minor (${upgrades.map((u) => u.ccmTag).join(', ')})${dropsFlags ? `; ${dropsFlags.step} also drops kube-apiserver's --cloud-provider and --cloud-config` : ''}.`,
    'Installing the CCM and turning leader migration off in it restart no node: they are CCM rollouts.',
  ].join(' ');
}
