/**
 * `migration-lease-held`: the migration lease is held by the expected component. A holder identity is
 * `hostname_UUID`, and a manager uses the same identity for its main lease and the migration lease, so the
 * migration lease belongs to the component whose main lease (kube-system/kube-controller-manager or
 * kube-system/cloud-controller-manager) names the same holder. The lease must also be fresh: renewed within
 * its leaseDurationSeconds (plus a little grace for clock skew between us and the cluster).
 */
import { LEASE_FRESHNESS_GRACE_SECONDS, LEASE_NAMESPACE } from '../../core/ownership/index.js';
import type { LeaseFacts, ManagerComponent } from './gate-facts.js';
import { pass, wait, type GateVerdict } from './gate-verdict.js';

export function evaluateMigrationLeaseHeld(
  leases: readonly LeaseFacts[],
  gate: { readonly leaseName: string; readonly by: ManagerComponent },
  now: number,
): GateVerdict {
  const migration = leases.find((l) => l.name === gate.leaseName);
  const main = leases.find((l) => l.name === gate.by);
  const other = leases.find((l) => l.name === otherComponent(gate.by));
  const where = `${LEASE_NAMESPACE}/${gate.leaseName}`;
  if (!migration?.holderIdentity) {
    return wait(
      `lease ${where} has no holder yet`,
      `check that ${gate.by} runs with --enable-leader-migration and may use the lease (the roles system::leader-locking-* need the ${gate.leaseName} resourceName)`,
    );
  }
  if (!main?.holderIdentity) {
    return wait(
      `the main lease ${LEASE_NAMESPACE}/${gate.by} has no holder, so ${gate.by} is not leading`,
      `check that ${gate.by} is running with leader election on`,
    );
  }
  if (migration.holderIdentity !== main.holderIdentity) {
    const holderIs =
      other?.holderIdentity === migration.holderIdentity ? ` (${otherComponent(gate.by)})` : '';
    return wait(
      `lease ${where} is held by ${migration.holderIdentity}${holderIs}, not by ${gate.by}'s leader ${main.holderIdentity}`,
      `wait for the lease to move: the current holder gives it up when it restarts without leader migration or stops; check ${gate.by}'s logs for "attempting to acquire leader lease"`,
    );
  }
  const age = renewAgeSeconds(migration, now);
  const limit = (migration.leaseDurationSeconds ?? 15) + LEASE_FRESHNESS_GRACE_SECONDS;
  if (age === undefined || age > limit) {
    return wait(
      `lease ${where} is held by ${gate.by} (${migration.holderIdentity}) but was last renewed ${age === undefined ? 'never' : `${Math.round(age)}s ago`}`,
      `check that ${gate.by} on the leading node is healthy; an expired lease means its leader stopped renewing`,
    );
  }
  return pass(
    `lease ${where} is held by ${gate.by} (${migration.holderIdentity}), renewed ${Math.round(age)}s ago`,
  );
}

function otherComponent(c: ManagerComponent): ManagerComponent {
  return c === 'kube-controller-manager' ? 'cloud-controller-manager' : 'kube-controller-manager';
}

function renewAgeSeconds(lease: LeaseFacts, now: number): number | undefined {
  if (!lease.renewTime) return undefined;
  const t = Date.parse(lease.renewTime);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, (now - t) / 1000);
}
