import { describe, expect, it } from 'vitest';
import { filterController, resolveControllers } from './controller-filter.js';
import { defaultLeaderMigrationConfiguration } from './default-config.js';
import { parseKubernetesVersion } from './kubernetes-version.js';
import type { LeaderMigrationConfiguration } from './leader-migration-config.js';
import { controllersOf, serviceAccountTokenController } from './controller-names.js';

const three = ['route-controller', 'service-controller', 'cloud-node-lifecycle-controller'];
const config = (component: string): LeaderMigrationConfiguration => ({
  leaderName: 'x',
  resourceLock: 'leases',
  controllerLeaders: three.map((name) => ({ name, component })),
});
const from = config('kube-controller-manager');
const to = config('cloud-controller-manager');
const wildcard = config('*');

// Test vectors C.19–C.27 of the leader-migration reference §5.
describe('filterController (reference vectors C)', () => {
  it.each([
    ['#19 from / KCM', from, 'kube-controller-manager', 'deployment-controller', 'migrated'],
    ['#20 from / CCM', from, 'cloud-controller-manager', 'cloud-node', 'unowned'],
    ['#21 to / KCM', to, 'kube-controller-manager', 'deployment-controller', 'unowned'],
    ['#22 to / CCM', to, 'cloud-controller-manager', 'cloud-node-controller', 'migrated'],
    ['#23 wildcard / KCM', wildcard, 'kube-controller-manager', 'deployment-controller', 'migrated'],
    ['#24 wildcard / CCM', wildcard, 'cloud-controller-manager', 'cloud-node-controller', 'migrated'],
  ] as const)('%s', (_name, cfg, component, other, threeAre) => {
    const f = filterController(cfg, component);
    expect(f(other)).toBe('non-migrated');
    for (const name of three) expect(f(name)).toBe(threeAre);
  });

  it('#25 duplicate names: the last entry wins', () => {
    const dup: LeaderMigrationConfiguration = {
      leaderName: 'x',
      resourceLock: 'leases',
      controllerLeaders: [
        { name: 'route', component: 'kube-controller-manager' },
        { name: 'route', component: 'cloud-controller-manager' },
      ],
    };
    expect(filterController(dup, 'kube-controller-manager')('route')).toBe('unowned');
    expect(filterController(dup, 'cloud-controller-manager')('route')).toBe('migrated');
  });

  it('#26 default config with real 1.28+ names migrates only cloud-node-lifecycle-controller', () => {
    const v = parseKubernetesVersion('1.30');
    const cfg = defaultLeaderMigrationConfiguration(v)!;
    for (const component of ['kube-controller-manager', 'cloud-controller-manager'] as const) {
      const f = filterController(cfg, component);
      expect(f('cloud-node-lifecycle-controller')).toBe('migrated');
      expect(f('service-lb-controller')).toBe('non-migrated');
      expect(f('node-route-controller')).toBe('non-migrated');
    }
    expect(filterController(cfg, 'kube-controller-manager')(serviceAccountTokenController(v))).toBe(
      'non-migrated',
    );
  });

  it('#27 default config with 1.22–1.27 names migrates route, service, cloud-node-lifecycle', () => {
    const v = parseKubernetesVersion('1.26');
    const cfg = defaultLeaderMigrationConfiguration(v)!;
    const kcm = Object.fromEntries(
      resolveControllers(cfg, 'kube-controller-manager', v).map((r) => [r.controller, r.ownership]),
    );
    expect(kcm).toMatchObject({
      route: 'migrated',
      service: 'migrated',
      'cloud-node-lifecycle': 'migrated',
      nodeipam: 'non-migrated',
    });
    const ccm = Object.fromEntries(
      resolveControllers(cfg, 'cloud-controller-manager', v).map((r) => [r.controller, r.ownership]),
    );
    expect(ccm).toEqual({
      'cloud-node': 'non-migrated',
      'cloud-node-lifecycle': 'migrated',
      service: 'migrated',
      route: 'migrated',
    });
  });

  it('no default configuration before 1.22', () => {
    expect(defaultLeaderMigrationConfiguration(parseKubernetesVersion('1.21'))).toBeUndefined();
    expect(defaultLeaderMigrationConfiguration(parseKubernetesVersion('1.22'))?.leaderName).toBe(
      'cloud-provider-extraction-migration',
    );
  });

  it('CCM controller keys per era', () => {
    expect(controllersOf('cloud-controller-manager', parseKubernetesVersion('1.27'))).toEqual([
      'cloud-node',
      'cloud-node-lifecycle',
      'service',
      'route',
    ]);
    expect(controllersOf('cloud-controller-manager', parseKubernetesVersion('1.28'))).toEqual([
      'cloud-node-controller',
      'cloud-node-lifecycle-controller',
      'service-lb-controller',
      'node-route-controller',
    ]);
  });
});
