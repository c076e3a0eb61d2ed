import { describe, expect, it } from 'vitest';
import {
  installCcmDaemonSet,
  okValue,
  resultOf,
  snapshotWith,
  type MutableSnapshot,
  setControlPlaneVersion,
} from './fixtures/mutable.js';
import { CCM_IDENTITY } from './migration-lease-rbac.js';

const GOOD_ARGS = [
  '--cloud-provider=aws',
  '--enable-leader-migration=true',
  '--configure-cloud-routes=false',
  '--use-service-account-credentials=true',
];

function install(m: MutableSnapshot, args: string[], tag = 'v1.26.11'): void {
  installCcmDaemonSet(m, tag, args);
  m.kube.ccmAccess = {
    state: 'ok',
    value: [
      {
        identity: { ...CCM_IDENTITY, groups: [...CCM_IDENTITY.groups] },
        attributes: { namespace: 'kube-system', verb: 'get', group: '', resource: 'serviceaccounts' },
        allowed: true,
      },
    ],
  };
  okValue(m.kube.componentPods).forEach((p) => p.args.push('--enable-leader-migration'));
}

describe('ccm-install', () => {
  it('passes when nothing is installed and names the tag it would pin', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'ccm-install',
      ),
    ).toMatchObject({ status: 'pass', message: expect.stringContaining('uproot pins v1.26.14') });
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'ccm-install',
        { targetVersion: '1.27' },
      ).message,
    ).toContain('pins v1.27.10 for Kubernetes 1.27');
  });

  it('passes a well-configured CCM', () => {
    expect(
      resultOf(
        snapshotWith((m) => install(m, GOOD_ARGS)),
        'ccm-install',
      ).status,
    ).toBe('pass');
  });

  it('fails a CCM without leader migration next to in-tree managers', () => {
    const r = resultOf(
      snapshotWith((m) =>
        install(m, [
          '--cloud-provider=aws',
          '--configure-cloud-routes=false',
          '--use-service-account-credentials=true',
        ]),
      ),
      'ccm-install',
    );
    expect(r.message).toContain(
      'no --enable-leader-migration while kube-controller-managers still run the in-tree provider',
    );
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'config',
      snippet: expect.stringContaining('--enable-leader-migration=true'),
    });
  });

  it('fails an image newer than the API server (the chart default v1.35.0)', () => {
    const r = resultOf(
      snapshotWith((m) => install(m, GOOD_ARGS, 'v1.35.0')),
      'ccm-install',
    );
    expect(r.message).toContain('image v1.35.0 is newer than the API server (v1.26.15+rke2r1)');
    expect(r.details).toContainEqual(
      expect.stringContaining('across the 1.28 controller rename only cloud-node-lifecycle migrates'),
    );
  });

  it('reads the tag of a mirrored, digest-pinned image (the digest was once taken for the tag)', () => {
    const r = resultOf(
      snapshotWith((m) => {
        install(m, GOOD_ARGS, 'v1.35.0');
        const ccm = okValue(m.kube.daemonSets)[0]!.containers[0]!;
        ccm.image = `mirror.internal:5000/provider-aws/cloud-controller-manager:v1.35.0@sha256:${'0'.repeat(64)}`;
      }),
      'ccm-install',
    );
    expect(r.status).toBe('fail');
    expect(r.message).toContain('image v1.35.0 is newer than the API server (v1.26.15+rke2r1)');
  });

  it('fails the 1.28 rename hazard with the default config, warns with an explicit config', () => {
    const hazard = snapshotWith((m) => {
      install(m, GOOD_ARGS, 'v1.28.5');
      setControlPlaneVersion(m, 'v1.27.13');
    });
    const r = resultOf(hazard, 'ccm-install');
    expect(r.status).toBe('fail');
    expect(r.details).toContainEqual(
      expect.stringContaining(
        'image v1.28.5 with the default leader-migration configuration next to kube-controller-manager v1.27.13',
      ),
    );
    const explicit = snapshotWith((m) => {
      install(m, [...GOOD_ARGS, '--leader-migration-config=/etc/lm.yaml'], 'v1.27.6');
      setControlPlaneVersion(m, 'v1.28.9');
    });
    expect(resultOf(explicit, 'ccm-install')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('straddle the 1.28 controller rename'),
    });
  });

  it('warns about routes and service-account credentials', () => {
    const r = resultOf(
      snapshotWith((m) => install(m, ['--cloud-provider=aws', '--enable-leader-migration=true'])),
      'ccm-install',
    );
    expect(r.status).toBe('warn');
    expect(r.details).toEqual(
      expect.arrayContaining([
        expect.stringContaining('--configure-cloud-routes is not false'),
        expect.stringContaining('no --use-service-account-credentials=true'),
      ]),
    );
  });

  it('fails when the CCM may not get service accounts', () => {
    const s = snapshotWith((m) => {
      install(m, GOOD_ARGS);
      okValue(m.kube.ccmAccess)[0]!.allowed = false;
    });
    const r = resultOf(s, 'ccm-install');
    expect(r.message).toContain('may not get serviceaccounts');
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'commands',
      commands: [expect.stringContaining('kubectl patch clusterrole system:cloud-controller-manager')],
    });
  });

  it('fails planned chart values whose clusterRoleRules lack get on serviceaccounts', () => {
    const s = snapshotWith((m) => {
      okValue(m.kube.componentPods).forEach((p) => p.args.push('--enable-leader-migration'));
      m.kube.helmCharts = {
        state: 'ok',
        value: [
          {
            namespace: 'kube-system',
            name: 'aws-cloud-controller-manager',
            chart: 'aws-cloud-controller-manager',
            valuesContent: `image: {tag: v1.26.11}\nargs: [${GOOD_ARGS.join(', ')}]\nclusterRoleRules:\n  - {apiGroups: [''], resources: [serviceaccounts], verbs: [create]}\n`,
          },
        ],
      };
    });
    expect(resultOf(s, 'ccm-install').message).toContain(
      'clusterRoleRules do not allow get on serviceaccounts',
    );
  });
});
