import { describe, expect, it } from 'vitest';
import { plan, step } from '../../engine/testing/plan-fixtures.js';
import { parseKubernetesVersion } from '../model/kubernetes-version.js';
import {
  defaultLeaderMigrationConfiguration,
  leaderMigrationToYaml,
  renderLeaderMigrationConfiguration,
} from '../leader-migration/index.js';
import {
  hostOfIdentity,
  identityProfiles,
  imageVersion,
  mostOwningProfile,
  podOnHost,
  type ManagerPod,
} from './holder-profiles.js';
import { leaseFor } from './lease-timeline.js';
import { findOwnershipOverlaps, ownershipInference } from './overlaps.js';
import { CCM, KCM, MIG, T0, at, described, managerPod, timelineOf, took } from './ownership-test-support.js';
import { inferProfiledOverlaps } from './profiled-inference.js';

const NOW = 60;
/** Pass, or fail with the overlaps' descriptions: what the no-ownership-overlap gate decides on. */
const verdict = (timeline: Parameters<typeof findOwnershipOverlaps>[0], e: ReturnType<typeof evidence>) => {
  const reason = described(findOwnershipOverlaps(timeline, ownershipInference, e));
  return reason === '' ? ({ type: 'pass' } as const) : ({ type: 'fail', reason } as const);
};
const evidence = (kcm: ManagerPod[], ccm: ManagerPod[], extra = {}) => ({
  now: T0 + NOW * 1000,
  pods: { [KCM]: kcm, [CCM]: ccm } as const,
  ...extra,
});
const inTreeKcm = (node = 'cp1', args: string[] = []) =>
  managerPod(KCM, node, ['--cloud-provider=aws', ...args], { version: '1.26.5' });
const migratingCcm = (node = 'cp2', version = '1.26.11') =>
  managerPod(CCM, node, ['--cloud-provider=aws', '--enable-leader-migration=true'], { version });

describe('holder identities and pods', () => {
  it('reads the host of client-go identities and matches it to the node or a host-network-less pod', () => {
    expect(hostOfIdentity('ip-10-0-0-10.ec2.internal_5f0c-11')).toBe('ip-10-0-0-10.ec2.internal');
    expect(hostOfIdentity('plain')).toBe('plain');
    const pod = inTreeKcm('ip-10-0-0-10.ec2.internal');
    expect(podOnHost(pod, 'ip-10-0-0-10')).toBe(true);
    expect(podOnHost(pod, 'ip-10-0-0-11')).toBe(false);
    expect(podOnHost({ ...pod, nodeName: undefined, name: 'aws-ccm-x7k2' }, 'aws-ccm-x7k2')).toBe(true);
  });
  it('reads the version from an image tag, with or without a distribution suffix or digest', () => {
    expect(imageVersion('registry.k8s.io/kube-controller-manager:v1.26.5')?.minor).toBe(26);
    // A real-length digest: `sha256:ab` is no digest (go-digest wants 64 hex digits), so no reference at all.
    const digest = `sha256:${'ab'.repeat(32)}`;
    expect(imageVersion(`rancher/hardened-kubernetes:v1.27.16-rke2r1-build20240717@${digest}`)?.minor).toBe(
      27,
    );
    expect(imageVersion('localhost:5000/kcm')).toBeUndefined();
  });
});

describe('no-ownership-overlap with live profiles', () => {
  it('reports a CCM without --enable-leader-migration next to an in-tree KCM, naming the controllers and both processes', () => {
    const timeline = timelineOf([took(KCM, 'cp1_k1', 0), took(CCM, 'cp2_c1', 30)], NOW);
    const pods = evidence(
      [inTreeKcm()],
      [managerPod(CCM, 'cp2', ['--cloud-provider=aws'], { version: '1.26.11', startedS: 20 })],
    );
    // The lease check alone sees nothing wrong: no lease changed hands early.
    expect(findOwnershipOverlaps(timeline).overlaps).toEqual([]);
    expect(described(findOwnershipOverlaps(timeline, ownershipInference, pods))).toMatch(
      /^cloud-node-lifecycle, route, service ran in cp1_k1 \(kube-controller-manager\) and cp2_c1 \(cloud-controller-manager\) from 2026-01-01T12:00:30.000Z to 2026-01-01T12:01:00.000Z \(30 s\)$/,
    );
    // nodeipam and cloud-node each run in one manager only.
    expect(ownershipInference(timeline, pods)).toMatchObject([
      {
        controllers: ['cloud-node-lifecycle', 'route', 'service'],
        identities: ['cp1_k1', 'cp2_c1'],
        from: at(30),
        to: at(NOW),
      },
    ]);
  });

  it('passes when both managers migrate and the migration lease is handed from the KCM to the CCM', () => {
    const timeline = timelineOf(
      [
        took(KCM, 'cp1_k1', 0),
        took(MIG, 'cp1_k1', 0),
        took(CCM, 'cp2_c1', 10),
        took(MIG, '', 40), // released by the KCM
        took(MIG, 'cp2_c1', 50),
      ],
      NOW,
    );
    const pods = evidence([inTreeKcm('cp1', ['--enable-leader-migration'])], [migratingCcm()]);
    expect(timeline).toHaveLength(8);
    expect(findOwnershipOverlaps(timeline, ownershipInference, pods)).toEqual({
      overlaps: [],
      bases: { pod: 2 },
    });
    // Without leader migration on the CCM, the same timeline overlaps from the moment the CCM leads.
    const noMigration = evidence(
      [inTreeKcm('cp1', ['--enable-leader-migration'])],
      [managerPod(CCM, 'cp2', ['--cloud-provider=aws'], { version: '1.26.11' })],
    );
    const overlaps = inferProfiledOverlaps(timeline, noMigration).overlaps;
    expect(overlaps.find((o) => o.controllers.includes('service'))).toMatchObject({
      from: T0 + 10_000,
      to: T0 + 40_000,
    });
  });

  it('passes with KCM N+1 on --cloud-provider=external holding its lease while the CCM holds the migration lease', () => {
    const timeline = timelineOf(
      [took(KCM, 'cp1_k2', 0), took(CCM, 'cp2_c1', 0), took(MIG, 'cp2_c1', 5)],
      NOW,
    );
    const external = managerPod(KCM, 'cp1', ['--cloud-provider=external'], { version: '1.27.3' });
    expect(verdict(timeline, evidence([external], [migratingCcm()])).type).toBe('pass');
    // The same KCM still in-tree would run them too; --controllers turning them all off would not.
    expect(verdict(timeline, evidence([inTreeKcm()], [migratingCcm()]))).toMatchObject({
      type: 'fail',
      reason: expect.stringMatching(/, service ran in cp1_k2/),
    });
    const off = inTreeKcm('cp1', ['--controllers=*,-route,-service-lb-controller,-cloud-node-lifecycle']);
    expect(verdict(timeline, evidence([off], [migratingCcm()])).type).toBe('pass');
  });

  it('judges a holder no pod accounts for as running every controller it has under its own lease', () => {
    const timeline = timelineOf([took(KCM, 'cp9_x', 0), took(CCM, 'cp2_c1', 0), took(MIG, 'cp2_c1', 5)], NOW);
    const pods = evidence([inTreeKcm('cp1', ['--cloud-provider=external'])], [migratingCcm()]);
    expect(described(findOwnershipOverlaps(timeline, ownershipInference, pods))).toMatch(
      /route, service ran in cp2_c1 \(cloud-controller-manager\) and cp9_x \(kube-controller-manager\) from .* \(no pod or plan tells how cp9_x ran: assumed/,
    );
    const holder = { identity: 'cp9_x', component: KCM, firstSeen: T0, heldMigrationLease: false } as const;
    const resolved = identityProfiles([holder], pods)['cp9_x']!;
    expect(resolved.basis).toBe('default');
    expect(resolved.profile).toMatchObject({ cloudControllers: true });
    expect(resolved.profile.migration).toBeUndefined();
    // A process on cp1 seen before cp1's pod started is an earlier one: the pod does not vouch for it.
    const earlier = { ...holder, identity: 'cp1_old', firstSeen: T0 - 700_000 };
    expect(identityProfiles([earlier], pods)['cp1_old']!.basis).toBe('default');
    const current = { ...holder, identity: 'cp1_new', firstSeen: T0 };
    expect(identityProfiles([current], pods)['cp1_new']).toMatchObject({
      basis: 'pod',
      profile: { cloudControllers: false },
    });
  });

  it('handles the 1.28 rename: a 1.28 CCM on the default configuration runs service and route under its own lease', () => {
    const timeline = timelineOf(
      [took(KCM, 'cp1_k1', 0), took(MIG, 'cp1_k1', 0), took(CCM, 'cp2_c1', 20)],
      NOW,
    );
    const kcm = inTreeKcm('cp1', ['--enable-leader-migration']);
    const found = verdict(timeline, evidence([kcm], [migratingCcm('cp2', '1.28.4')]));
    expect(found).toMatchObject({
      type: 'fail',
      reason: expect.stringMatching(
        /^route, service ran in cp1_k1 \(kube-controller-manager\) and cp2_c1 \(cloud-controller-manager as node-route-controller, service-lb-controller\) from/,
      ),
    });
    // cloud-node-lifecycle-controller is in the 1.28 default: it stays migrated on both sides.
    expect(found.type === 'fail' && found.reason).not.toMatch(/cloud-node-lifecycle/);

    // The plan's explicit configuration names both eras: no overlap.
    const v126 = parseKubernetesVersion('1.26');
    const v128 = parseKubernetesVersion('1.28');
    const file = leaderMigrationToYaml(
      renderLeaderMigrationConfiguration({ phase: 'wildcard', versions: [v126, v128] }),
    );
    const explicit = plan([
      step('enable-leader-migration', [
        {
          type: 'write-file',
          description: 'config',
          path: '/etc/leadermigration.conf',
          content: file,
          diff: '',
        },
      ]),
    ]);
    const flag = '--leader-migration-config=/etc/leadermigration.conf';
    const pods = evidence(
      [inTreeKcm('cp1', ['--enable-leader-migration', flag])],
      [
        managerPod(CCM, 'cp2', ['--cloud-provider=aws', '--enable-leader-migration', flag], {
          version: '1.28.4',
        }),
      ],
      {
        history: {
          plan: { ...explicit, ccm: { ...explicit.ccm, leaderMigrationConfig: 'explicit' } },
          steps: [],
        },
      },
    );
    expect(verdict(timeline, pods).type).toBe('pass');
    // A configuration file the plan does not know is judged as migrating nothing.
    const unknown = evidence(
      [inTreeKcm('cp1', ['--enable-leader-migration'])],
      [
        managerPod(
          CCM,
          'cp2',
          ['--cloud-provider=aws', '--enable-leader-migration', '--leader-migration-config=/x'],
          { version: '1.26.11' },
        ),
      ],
    );
    expect(verdict(timeline, unknown).type).toBe('fail');
  });
});

describe('mostOwningProfile', () => {
  const v126 = parseKubernetesVersion('1.26');
  const migrating = {
    version: v126,
    cloudControllers: true,
    migration: defaultLeaderMigrationConfiguration(v126)!,
  };
  const external = { version: parseKubernetesVersion('1.27'), cloudControllers: false };
  it('owns each controller as much as the most owning candidate', () => {
    const merged = mostOwningProfile(KCM, [migrating, external]);
    expect(leaseFor(KCM, merged, 'service')).toBe('migration');
    expect(leaseFor(KCM, merged, 'nodeipam')).toBe('main');
    const withInTree = mostOwningProfile(KCM, [migrating, { version: v126, cloudControllers: true }]);
    expect(leaseFor(KCM, withInTree, 'service')).toBe('main');
    expect(leaseFor(KCM, mostOwningProfile(KCM, [external]), 'service')).toBeUndefined();
    expect(mostOwningProfile(KCM, [migrating, migrating])).toBe(migrating);
  });
});
