/**
 * leader-election: leader migration runs on top of the managers' leader election, so every
 * kube-controller-manager must run with --leader-elect (the default) and its main lease
 * (kube-system/kube-controller-manager unless --leader-elect-resource-name says otherwise) must exist and be
 * held. A lease not renewed within its duration means no KCM is leading right now.
 */
import { fail, pass, skip, warn, type CheckResult } from './check-result.js';
import { plural, type CheckContext } from './check-context.js';
import { flagEnabled } from '../model/component-flags.js';

const ID = 'leader-election';

export function checkLeaderElection(ctx: CheckContext): CheckResult {
  const kcm = ctx.profile.kcm;
  if (kcm.state === 'unavailable') return skip(ID, kcm.reason);
  const disabled = kcm.value.filter((v) => !flagEnabled(v.flags, 'leader-elect', true));
  if (disabled.length > 0) {
    return fail(
      ID,
      `${plural(disabled.length, 'kube-controller-manager')} run with --leader-elect=false: leader migration needs leader election`,
      [
        {
          type: 'manual',
          description:
            'remove --leader-elect=false from the kube-controller-manager flags (the default is true)',
          steps: disabled.map((v) => `${v.source}: drop --leader-elect=false`),
        },
      ],
      { details: disabled.map((v) => v.source) },
    );
  }
  const lockNames = new Set(
    kcm.value.map((v) => v.flags.get('leader-elect-resource-name') ?? 'kube-controller-manager'),
  );
  const lockName = [...lockNames][0]!;
  const leases = ctx.snapshot.kube.leases;
  if (leases.state === 'unavailable') return skip(ID, leases.reason);
  const lease = leases.value.find((l) => l.name === lockName);
  const resources = [{ kind: 'Lease', name: lockName, namespace: 'kube-system' }];
  if (!lease || !lease.holderIdentity) {
    return fail(
      ID,
      `the kube-controller-manager lease kube-system/${lockName} ${lease ? 'has no holder' : 'does not exist'}: no KCM is leading with a Lease lock`,
      [
        {
          type: 'commands',
          description:
            'check that the kube-controller-managers are running and use --leader-elect-resource-lock=leases',
          commands: [
            'kubectl -n kube-system get pods -l component=kube-controller-manager',
            `kubectl -n kube-system get lease ${lockName} -o yaml`,
          ],
        },
      ],
      { resources },
    );
  }
  const ageSeconds = lease.renewTime
    ? (Date.parse(ctx.snapshot.kube.readAt) - Date.parse(lease.renewTime)) / 1000
    : Number.POSITIVE_INFINITY;
  const duration = lease.leaseDurationSeconds ?? 15;
  const details = [
    `holder ${lease.holderIdentity}`,
    `renewed ${Number.isFinite(ageSeconds) ? `${Math.round(ageSeconds)}s` : 'never'} ago, duration ${duration}s`,
  ];
  if (lockNames.size > 1) details.push(`managers disagree on the lease name: ${[...lockNames].join(', ')}`);
  if (!(ageSeconds <= duration)) {
    return warn(
      ID,
      `the kube-controller-manager lease is held by ${lease.holderIdentity} but was not renewed for ${Number.isFinite(ageSeconds) ? `${Math.round(ageSeconds)}s` : 'ever'} (duration ${duration}s): the leader may be down`,
      [
        {
          type: 'commands',
          description: 'make sure a kube-controller-manager is healthy and leading before migrating',
          commands: [
            'kubectl -n kube-system get pods -l component=kube-controller-manager',
            `kubectl -n kube-system get lease ${lockName} -w`,
          ],
        },
      ],
      { resources, details },
    );
  }
  return pass(
    ID,
    `${plural(kcm.value.length, 'kube-controller-manager')} with leader election; lease ${lockName} held by ${lease.holderIdentity}`,
    { resources, details },
  );
}
