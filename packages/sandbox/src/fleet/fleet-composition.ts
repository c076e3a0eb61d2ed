/**
 * Which downstream clusters a fleet twin has: `downstream-01` … `downstream-NN`, most of them healthy RKE2 on
 * the in-tree provider, every fifth carrying a defect preflight refuses (cycling through the built-in failure
 * scenarios), and every fifth one whose only finding the plan itself fixes (the migration-lease RBAC). Labels
 * let `--selector` pick parts of it: env=prod|staging, and uproot.dev/scenario.
 */
export interface FleetMemberSpec {
  readonly name: string;
  /** A built-in scenario (scenarios/*.yaml), run under this cluster's name. */
  readonly scenario: string;
  readonly labels: Readonly<Record<string, string>>;
}

export const FLEET_HEALTHY = 'rke2-intree';
export const FLEET_REFUSED = ['missing-cluster-tag', 'iam-gap-control-plane', 'two-tagged-security-groups'];
export const FLEET_PLAN_FIXES = 'no-migration-lease-rbac';

export function fleetComposition(count: number): FleetMemberSpec[] {
  return Array.from({ length: count }, (_, i) => {
    const scenario =
      i % 5 === 3
        ? FLEET_REFUSED[Math.floor(i / 5) % FLEET_REFUSED.length]!
        : i % 5 === 4
          ? FLEET_PLAN_FIXES
          : FLEET_HEALTHY;
    return {
      name: `downstream-${String(i + 1).padStart(2, '0')}`,
      scenario,
      labels: { env: i % 2 === 0 ? 'prod' : 'staging', 'uproot.dev/scenario': scenario },
    };
  });
}
