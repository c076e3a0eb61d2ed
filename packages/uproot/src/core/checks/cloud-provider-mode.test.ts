import { describe, expect, it } from 'vitest';
import {
  okValue,
  resultOf,
  snapshotWith,
  type DeepMutable,
  type MutableSnapshot,
} from './fixtures/mutable.js';
import type { DaemonSetFacts } from '../model/snapshot.js';

const ccm = (args: string[]): DeepMutable<DaemonSetFacts> => ({
  namespace: 'kube-system',
  name: 'aws-cloud-controller-manager',
  labels: {},
  containers: [
    { name: 'ccm', image: 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.11', args },
  ],
  nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' },
  tolerations: [{ operator: 'Exists' }],
  hostNetwork: true,
});

function kcmArgs(s: MutableSnapshot, edit: (args: string[], i: number) => string[]): void {
  okValue(s.kube.componentPods).forEach((p, i) => (p.args = edit(p.args, i)));
}

describe('cloud-provider-mode', () => {
  it('passes in-tree with no CCM', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'cloud-provider-mode',
      ),
    ).toMatchObject({
      status: 'pass',
      message: expect.stringMatching(/^in-tree: 3 kube-controller-managers/),
    });
  });

  it('fails a CCM next to in-tree managers without leader migration', () => {
    const s = snapshotWith(
      (m) => (m.kube.daemonSets = { state: 'ok', value: [ccm(['--cloud-provider=aws'])] }),
    );
    expect(resultOf(s, 'cloud-provider-mode')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('run in both'),
    });
  });

  it('warns while a migration is in progress (both sides with leader migration)', () => {
    const s = snapshotWith((m) => {
      m.kube.daemonSets = {
        state: 'ok',
        value: [ccm(['--cloud-provider=aws', '--enable-leader-migration=true'])],
      };
      kcmArgs(m, (a) => [...a, '--enable-leader-migration']);
    });
    expect(resultOf(s, 'cloud-provider-mode')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('in progress'),
    });
  });

  it('fails external without a CCM, passes external with one', () => {
    const external = snapshotWith((m) =>
      kcmArgs(m, (a) => a.map((x) => x.replace('--cloud-provider=aws', '--cloud-provider=external'))),
    );
    expect(resultOf(external, 'cloud-provider-mode').status).toBe('fail');
    const done = snapshotWith((m) => {
      kcmArgs(m, (a) => a.map((x) => x.replace('--cloud-provider=aws', '--cloud-provider=external')));
      m.kube.daemonSets = { state: 'ok', value: [ccm(['--cloud-provider=aws'])] };
    });
    expect(resultOf(done, 'cloud-provider-mode')).toMatchObject({
      status: 'pass',
      message: expect.stringContaining('nothing to migrate'),
    });
  });

  it('fails managers that disagree without leader migration, warns when they migrate', () => {
    const mixed = snapshotWith((m) =>
      kcmArgs(m, (a, i) => (i === 0 ? a.map((x) => x.replace('=aws', '=external')) : a)),
    );
    expect(resultOf(mixed, 'cloud-provider-mode')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('2 aws, 1 external'),
    });
    const rolling = snapshotWith((m) =>
      kcmArgs(m, (a, i) =>
        i === 0 ? a.map((x) => x.replace('=aws', '=external')) : [...a, '--enable-leader-migration'],
      ),
    );
    expect(resultOf(rolling, 'cloud-provider-mode').status).toBe('warn');
  });

  it('reads RKE from the cluster definition when the KCM is not a pod', () => {
    const s = snapshotWith((m) => {
      m.kube.componentPods = { state: 'ok', value: [] };
      m.kube.clusterDefinition = {
        state: 'ok',
        value: {
          distro: 'rke',
          source: 'cluster.yml',
          cloudProviderName: 'aws',
          nodes: [],
          kcmExtraArgs: {},
        },
      };
    });
    expect(resultOf(s, 'cloud-provider-mode')).toMatchObject({
      status: 'pass',
      details: ['cluster.yml: --cloud-provider=aws'],
    });
  });

  it('warns when the definition disagrees with the running managers', () => {
    const s = snapshotWith((m) => {
      m.kube.clusterDefinition = {
        state: 'ok',
        value: {
          distro: 'rke2',
          source: 'cluster.yaml',
          cloudProviderName: 'aws',
          roles: {
            'control-plane': { kcmArgs: ['cloud-provider=external'], kubeletArgs: [], apiServerArgs: [] },
            etcd: { kcmArgs: [], kubeletArgs: [], apiServerArgs: [] },
            worker: { kcmArgs: [], kubeletArgs: [], apiServerArgs: [] },
          },
        },
      };
    });
    expect(resultOf(s, 'cloud-provider-mode')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('cluster.yaml sets --cloud-provider=external'),
    });
  });

  it('skips when no KCM flags are visible', () => {
    const s = snapshotWith((m) => (m.kube.componentPods = { state: 'ok', value: [] }));
    expect(resultOf(s, 'cloud-provider-mode')).toMatchObject({
      status: 'skip',
      reason: expect.stringContaining('pass --cluster-file or --rancher-context'),
    });
  });
});
