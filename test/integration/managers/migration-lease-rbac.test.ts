import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const FORBIDDEN =
  'leases.coordination.k8s.io "cloud-provider-extraction-migration" is forbidden: User "system:kube-controller-manager" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"';
const KCM_ARGS = [
  '--cloud-provider=aws',
  '--enable-leader-migration',
  '--use-service-account-credentials=true',
];

describe('the migration lease without seed 003\u2019s RBAC patch', () => {
  it('fails the migration election with the 403: migrated controllers never start', async () => {
    h = await harness({ migrationLeaseRbac: false });
    const t = h;
    const kcm = t.start('kube-controller-manager', t.cluster.nodes[0]!, KCM_ARGS, '1.26');
    await t.advance(30_000);

    const refused = kcm.logs.filter(
      (l) =>
        l.startsWith(
          'error: error retrieving resource lock kube-system/cloud-provider-extraction-migration',
        ) && l.includes(FORBIDDEN),
    );
    expect(refused.length).toBeGreaterThan(3);
    expect(kcm.leading()).toEqual({ main: true, migration: false });
    const started = t.ledger.entries.filter((e) => e.action === 'started').map((e) => e.controller);
    expect(started).toEqual(['serviceaccount-token']);
    // Like client-go, the elector keeps retrying; the process stays up, the cloud controllers run nowhere.
    expect(kcm.running).toBe(true);
  });

  it('ends the manager with exit 1 when a leading KCM loses access to the migration lease', async () => {
    h = await harness();
    const t = h;
    const kcm = t.start('kube-controller-manager', t.cluster.nodes[0]!, KCM_ARGS, '1.26');
    await t.until(() => kcm.leading().migration, 30_000);
    expect(kcm.runningControllers()).toEqual(expect.arrayContaining(['service', 'cloud-node-lifecycle']));

    // Someone restores the role to its bootstrap rules (drops the migration lease).
    t.cluster.api.store.patch(
      'roles',
      'kube-system',
      'system::leader-locking-kube-controller-manager',
      'merge',
      {
        rules: [
          {
            apiGroups: ['coordination.k8s.io'],
            resources: ['leases'],
            resourceNames: ['kube-controller-manager'],
            verbs: ['get', 'update'],
          },
        ],
      },
    );
    const exit = await Promise.race([kcm.exited, t.until(() => !kcm.running, 60_000).then(() => kcm.exited)]);
    expect(exit).toEqual({ code: 1, reason: 'migration leaderelection lost' });
    expect(kcm.logs.some((l) => l.includes('forbidden'))).toBe(true);
    const stopped = t.ledger.entries.filter((e) => e.action === 'stopped').map((e) => e.controller);
    expect(stopped).toEqual(
      expect.arrayContaining(['service', 'cloud-node-lifecycle', 'serviceaccount-token']),
    );
  });
});
