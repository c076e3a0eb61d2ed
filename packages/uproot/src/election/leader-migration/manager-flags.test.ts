import { describe, expect, it } from 'vitest';
import { parseKubernetesVersion } from '../model/index.js';
import { controllerAliases, isControllerEnabled, resolveControllerAliases } from './controller-selection.js';
import { parseGoDuration } from '../model/go-flag-values.js';
import { managerOptionsFromFlags, parseManagerFlags, type ManagerFlagsOptions } from './manager-flags.js';

const KCM: ManagerFlagsOptions = { component: 'kube-controller-manager', kubernetesVersion: '1.26' };
const CCM: ManagerFlagsOptions = { component: 'cloud-controller-manager', kubernetesVersion: '1.27' };

function errors(argv: string[], options: ManagerFlagsOptions = KCM): readonly string[] {
  const result = parseManagerFlags(argv, options);
  return result.ok ? [] : result.errors;
}

describe('parseManagerFlags', () => {
  it('fills upstream defaults', () => {
    const result = parseManagerFlags([], KCM);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.flags).toMatchObject({
      cloudProvider: '',
      enableLeaderMigration: false,
      controllers: ['*'],
      leaderElect: true,
      timings: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      resourceName: 'kube-controller-manager',
      resourceNamespace: 'kube-system',
      resourceLock: 'leases',
      configureCloudRoutes: true,
      useServiceAccountCredentials: false,
    });
  });

  it('reads every modelled flag in both --a=b and --a b forms, bools bare or with a value', () => {
    const result = parseManagerFlags(
      [
        '--cloud-provider=aws',
        '--enable-leader-migration',
        '--leader-migration-config',
        '/etc/lm.yaml',
        '--controllers=*,-nodeipam',
        '--controllers',
        'tokencleaner',
        '--leader-elect=true',
        '--leader-elect-lease-duration=1m30s',
        '--leader-elect-renew-deadline',
        '60s',
        '--leader-elect-retry-period=500ms',
        '--leader-elect-resource-name=kcm',
        '--leader-elect-resource-namespace=other',
        '--configure-cloud-routes=false',
        '--use-service-account-credentials',
        '--allocate-node-cidrs=true',
      ],
      KCM,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.flags).toMatchObject({
      cloudProvider: 'aws',
      enableLeaderMigration: true,
      leaderMigrationConfig: '/etc/lm.yaml',
      controllers: ['*', '-nodeipam', 'tokencleaner'],
      timings: { leaseDurationMs: 90_000, renewDeadlineMs: 60_000, retryPeriodMs: 500 },
      resourceName: 'kcm',
      resourceNamespace: 'other',
      configureCloudRoutes: false,
      useServiceAccountCredentials: true,
      other: { 'allocate-node-cidrs': 'true' },
    });
    expect(result.warnings).toEqual(['flag --allocate-node-cidrs is not modelled by uproot; ignored']);
  });

  it('reports bad values as pflag does', () => {
    expect(errors(['--leader-elect=yes'])).toEqual([
      'invalid argument "yes" for "--leader-elect" flag: strconv.ParseBool: parsing "yes": invalid syntax',
    ]);
    expect(errors(['--leader-elect-lease-duration=15'])).toEqual([
      'invalid argument "15" for "--leader-elect-lease-duration" flag: time: missing unit in duration "15"',
    ]);
    expect(errors(['--leader-elect-retry-period=2x'])).toEqual([
      'invalid argument "2x" for "--leader-elect-retry-period" flag: time: unknown unit "x" in duration "2x"',
    ]);
    expect(errors(['--leader-elect', 'false'])).toEqual([
      '"kube-controller-manager" does not take any arguments, got ["false"]',
    ]);
    expect(errors(['--bogus'], { ...KCM, strict: true })).toEqual(['unknown flag: --bogus']);
    expect(errors(['--cloud-provider'])).toEqual(['flag needs an argument: --cloud-provider']);
  });

  it('resourceLock value must be "leases"', () => {
    expect(errors(['--leader-elect-resource-lock=endpoints'])).toEqual([
      'resourceLock value must be "leases"',
    ]);
    expect(errors(['--leader-elect-resource-lock=endpoints', '--leader-elect=false'])).toEqual([]);
  });

  it('the ControllerManagerLeaderMigration gate: off in 1.21, locked on in 1.24–1.26, gone in 1.27', () => {
    const v121 = { ...KCM, kubernetesVersion: '1.21' };
    expect(errors(['--enable-leader-migration', '--leader-migration-config=x'], v121)).toEqual([
      'Leader Migration is not enabled through feature gate',
    ]);
    expect(
      errors(['--enable-leader-migration', '--feature-gates=ControllerManagerLeaderMigration=true'], v121),
    ).toEqual(['--leader-migration-config is required']);
    expect(
      errors(
        [
          '--enable-leader-migration',
          '--leader-migration-config=x',
          '--feature-gates=ControllerManagerLeaderMigration=true',
        ],
        v121,
      ),
    ).toEqual([]);
    expect(errors(['--enable-leader-migration'], { ...KCM, kubernetesVersion: '1.22' })).toEqual([]);
    expect(
      errors(['--enable-leader-migration', '--feature-gates=ControllerManagerLeaderMigration=false'], {
        ...KCM,
        kubernetesVersion: '1.23',
      }),
    ).toEqual(['Leader Migration is not enabled through feature gate']);
    expect(errors(['--feature-gates=ControllerManagerLeaderMigration=false'])).toEqual([
      'invalid argument "ControllerManagerLeaderMigration=false" for "--feature-gates" flag: cannot set feature gate ControllerManagerLeaderMigration to false, feature is locked to true',
    ]);
    expect(errors(['--feature-gates=ControllerManagerLeaderMigration=true'], CCM)).toEqual([
      'invalid argument "ControllerManagerLeaderMigration=true" for "--feature-gates" flag: unrecognized feature gate: ControllerManagerLeaderMigration',
    ]);
    expect(errors(['--feature-gates=Foo'])).toEqual([
      'invalid argument "Foo" for "--feature-gates" flag: missing bool value for Foo',
    ]);
  });

  it('validates --controllers against the version’s names, resolving 1.28 aliases', () => {
    expect(errors(['--controllers=*,-nodeipam,notacontroller'])).toEqual([
      '"notacontroller" is not in the list of known controllers',
    ]);
    expect(errors(['--controllers=*,-nodeipam'], { ...KCM, kubernetesVersion: '1.29' })).toEqual([]);
    expect(errors(['--controllers=*,-node-ipam-controller'])).toEqual([
      '"node-ipam-controller" is not in the list of known controllers',
    ]);
  });

  it('CCM needs --cloud-provider; bad timings fail with client-go’s NewLeaderElector message', () => {
    expect(errors([], CCM)).toEqual(['--cloud-provider cannot be empty']);
    expect(errors(['--cloud-provider=aws', '--leader-elect-renew-deadline=20s'], CCM)).toEqual([
      'leaseDuration must be greater than renewDeadline',
    ]);
    expect(
      errors(['--cloud-provider=aws', '--leader-elect-renew-deadline=20s', '--leader-elect=false'], CCM),
    ).toEqual([]);
  });

  it('maps to runtime options; without --enable-leader-migration the config file is not used', () => {
    const config = { leaderName: 'x', resourceLock: 'leases', controllerLeaders: [] };
    const off = parseManagerFlags(['--leader-migration-config=/x'], KCM);
    const on = parseManagerFlags(['--enable-leader-migration', '--leader-migration-config=/x'], KCM);
    if (!off.ok || !on.ok) throw new Error('unexpected');
    expect(managerOptionsFromFlags(off.flags, config).migration).toEqual({ enabled: false });
    expect(managerOptionsFromFlags(on.flags, config)).toMatchObject({
      component: 'kube-controller-manager',
      mainLeaseName: 'kube-controller-manager',
      migration: { enabled: true, config },
      enabledControllers: ['*'],
    });
  });
});

describe('controller selection', () => {
  it('IsControllerEnabled: first explicit match wins, * enables non-default-off controllers', () => {
    const off = new Set(['tokencleaner']);
    expect(isControllerEnabled('a', off, ['*'])).toBe(true);
    expect(isControllerEnabled('tokencleaner', off, ['*'])).toBe(false);
    expect(isControllerEnabled('tokencleaner', off, ['*', 'tokencleaner'])).toBe(true);
    expect(isControllerEnabled('a', off, ['-a', '*'])).toBe(false);
    expect(isControllerEnabled('a', off, ['a', '-a'])).toBe(true);
    expect(isControllerEnabled('a', off, ['b'])).toBe(false);
  });

  it('1.28+ aliases map every short name to its canonical name', () => {
    const aliases = controllerAliases('kube-controller-manager', parseKubernetesVersion('1.30'));
    expect(aliases).toMatchObject({
      service: 'service-lb-controller',
      route: 'node-route-controller',
      nodeipam: 'node-ipam-controller',
      'serviceaccount-token': 'serviceaccount-token-controller',
      attachdetach: 'persistentvolume-attach-detach-controller',
    });
    expect(controllerAliases('cloud-controller-manager', parseKubernetesVersion('1.28'))).toEqual({
      'cloud-node': 'cloud-node-controller',
      'cloud-node-lifecycle': 'cloud-node-lifecycle-controller',
      service: 'service-lb-controller',
      route: 'node-route-controller',
    });
    expect(controllerAliases('kube-controller-manager', parseKubernetesVersion('1.27'))).toEqual({});
    expect(resolveControllerAliases(['*', '-service', 'route'], aliases)).toEqual([
      '*',
      '-service-lb-controller',
      'node-route-controller',
    ]);
  });

  it('parses Go durations', () => {
    expect(parseGoDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('-1.5ms')).toBe(-1.5);
    expect(parseGoDuration('250us')).toBe(0.25);
    expect(() => parseGoDuration('')).toThrow('time: invalid duration ""');
    expect(() => parseGoDuration('.s')).toThrow('time: invalid duration ".s"');
  });
});
