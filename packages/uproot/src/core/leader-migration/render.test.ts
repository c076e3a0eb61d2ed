import { describe, expect, it } from 'vitest';
import { defaultConfigIsSafe, leaderMigrationToYaml, renderLeaderMigrationConfiguration } from './render.js';
import { decodeLeaderMigrationConfiguration } from './decode.js';
import { filterController } from '../../election/model/index.js';
import { checkLeaderMigrationConfiguration } from './check.js';
import { controllerName, migratableControllers } from '../../election/model/index.js';
import { parseKubernetesVersion } from '../model/kubernetes-version.js';

const v126 = parseKubernetesVersion('1.26');
const v127 = parseKubernetesVersion('1.27');
const v129 = parseKubernetesVersion('1.29');

describe('renderLeaderMigrationConfiguration', () => {
  it('renders the seed-003 initial, target and wildcard configurations', () => {
    for (const [phase, component] of [
      ['initial', 'kube-controller-manager'],
      ['target', 'cloud-controller-manager'],
      ['wildcard', '*'],
    ] as const) {
      const cfg = renderLeaderMigrationConfiguration({ phase, versions: [v126, v127] });
      expect(cfg.leaderName).toBe('cloud-provider-extraction-migration');
      expect(cfg.controllerLeaders).toEqual(
        ['route', 'service', 'cloud-node-lifecycle'].map((name) => ({ name, component })),
      );
    }
  });

  it('adds nodeipam when asked', () => {
    const cfg = renderLeaderMigrationConfiguration({
      phase: 'wildcard',
      versions: [v126],
      withNodeIpam: true,
    });
    expect(cfg.controllerLeaders.map((l) => l.name)).toEqual([
      'route',
      'service',
      'cloud-node-lifecycle',
      'nodeipam',
    ]);
  });

  it('lists both eras across the 1.28 rename, so both managers migrate the same controllers', () => {
    const cfg = renderLeaderMigrationConfiguration({ phase: 'wildcard', versions: [v126, v129] });
    const kcm = filterController(cfg, 'kube-controller-manager');
    const ccm = filterController(cfg, 'cloud-controller-manager');
    for (const logical of migratableControllers(false)) {
      expect(kcm(controllerName(logical, v126))).toBe('migrated');
      expect(ccm(controllerName(logical, v129))).toBe('migrated');
    }
  });

  it('round-trips through YAML with "*" quoted, for every API version', () => {
    const cfg = renderLeaderMigrationConfiguration({ phase: 'wildcard', versions: [v126] });
    for (const apiVersion of ['v1', 'v1beta1', 'v1alpha1'] as const) {
      const text = leaderMigrationToYaml(cfg, apiVersion);
      expect(text).toContain('component: "*"');
      const report = checkLeaderMigrationConfiguration(text, { kubernetesVersion: v126 });
      expect(report.valid).toBe(true);
      expect(report.config).toEqual(cfg);
      expect(decodeLeaderMigrationConfiguration(text).apiVersion).toBe(apiVersion);
    }
  });

  it('knows when the default configuration is unsafe (across the rename)', () => {
    expect(defaultConfigIsSafe(v126, v127)).toBe(true);
    expect(defaultConfigIsSafe(v126, v129)).toBe(false);
    expect(defaultConfigIsSafe(v129, parseKubernetesVersion('1.30'))).toBe(true);
  });
});

describe('lint', () => {
  it('warns about the 1.28+ default names that match nothing, naming the real controller', () => {
    const text = leaderMigrationToYaml({
      leaderName: 'x',
      resourceLock: 'leases',
      controllerLeaders: [{ name: 'service-controller', component: '*' }],
    });
    const r = checkLeaderMigrationConfiguration(text, { kubernetesVersion: v129 });
    expect(r.valid).toBe(true);
    expect(r.warnings[0]).toMatchObject({
      code: 'unknown-controller',
      field: 'controllerLeaders[0].name',
      line: 5,
    });
    expect(r.warnings[0]?.hint).toMatch(/service-lb-controller/);
  });

  it('warns on duplicates, endpoints on >= 1.24, unknown components, and an external KCM that migrates', () => {
    const text = `apiVersion: controllermanager.config.k8s.io/v1beta1
kind: LeaderMigrationConfiguration
leaderName: x
resourceLock: endpoints
controllerLeaders:
- name: route
  component: kube-controller-manager
- name: route
  component: cloud-controller-manager
- name: service
  component: kcm
`;
    const r = checkLeaderMigrationConfiguration(text, {
      kubernetesVersion: v126,
      kcmFlags: { cloudProvider: 'external', enableLeaderMigration: true },
    });
    expect(r.warnings.map((w) => w.code).sort()).toEqual(
      [
        'duplicate-controller',
        'endpoints-lock-removed',
        'external-kcm-migrating',
        'unknown-component',
      ].sort(),
    );
  });
});
