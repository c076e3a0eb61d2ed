import type { Journal } from '../engine/journal/journal-schema.js';
import { inferOwnership, type LeaseObservation, type OwnershipReport } from '../core/ownership/index.js';
import { parseKubernetesVersion } from '../core/kubernetes-version/index.js';
import { ccmTagMinor, defaultLeaderMigrationConfiguration } from '../core/leader-migration/index.js';

/**
 * The ownership timeline as seen from outside, inferred from the lease holder changes the journal recorded.
 * Approximate by nature (an observer cannot see a process die, only its lease expire); the sandbox's ledger is
 * the ground truth where there is one. Undefined when the journal holds fewer than two observations.
 */
export function journalOwnership(journal: Journal): OwnershipReport | undefined {
  const observations: LeaseObservation[] = journal.leaseTimeline.map((o) => ({
    time: Date.parse(o.observedAt),
    name: o.name,
    namespace: o.namespace,
    present: true,
    holderIdentity: o.holder,
    leaseDurationSeconds: o.leaseDurationSeconds ?? 15,
    renewTime: o.renewTime ? Date.parse(o.renewTime) : undefined,
    acquireTime: o.acquireTime ? Date.parse(o.acquireTime) : undefined,
    leaseTransitions: o.transitions,
  }));
  if (observations.length < 2) return undefined;
  const kcmVersion = parseKubernetesVersion(journal.plan.kubernetes.current);
  // The hand-over happens at the migration step; on a journey the CCM moves on later (kubernetes.upgrades).
  const migration = journal.plan.kubernetes.upgrades?.[0];
  const ccmMinor = ccmTagMinor(migration?.ccmTag ?? journal.plan.ccm.targetTag) ?? kcmVersion.minor;
  const ccmVersion = parseKubernetesVersion(`1.${ccmMinor}`);
  const times = observations.map((o) => o.time);
  return inferOwnership({
    observations,
    profiles: {
      'kube-controller-manager': {
        version: kcmVersion,
        migration: defaultLeaderMigrationConfiguration(kcmVersion),
        cloudControllers: true,
      },
      'cloud-controller-manager': {
        version: ccmVersion,
        migration: defaultLeaderMigrationConfiguration(ccmVersion),
        cloudControllers: true,
      },
    },
    window: { from: Math.min(...times), to: Math.max(...times) },
    controllers: ['route', 'service', 'cloud-node-lifecycle'],
  });
}
