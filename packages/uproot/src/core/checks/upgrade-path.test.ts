import { describe, expect, it } from 'vitest';
import type { ClusterDefinition } from '../model/cluster-definition.js';
import {
  okValue,
  resultOf,
  snapshotWith,
  type DeepMutable,
  type MutableSnapshot,
} from './fixtures/mutable.js';
import { nodeArgValues } from './upgrade-path.js';

/** The fixture's cluster, already external (its KCMs no longer run the in-tree provider). */
function external(m: MutableSnapshot): void {
  for (const pod of okValue(m.kube.componentPods))
    pod.args = pod.args.map((a) => (a === '--cloud-provider=aws' ? '--cloud-provider=external' : a));
}

function withApiserverArgs(m: MutableSnapshot, args: string[]): void {
  for (const n of okValue(m.kube.nodes)) {
    if (!('node-role.kubernetes.io/control-plane' in n.labels)) continue;
    n.annotations['rke2.io/node-args'] = JSON.stringify([
      'server',
      '--cloud-provider-name',
      'external',
      ...args.flatMap((a) => ['--kube-apiserver-arg', a]),
    ]);
  }
}

function rke2Definition(cp: {
  apiServerArgs?: string[];
  disableCloudController?: boolean;
}): DeepMutable<ClusterDefinition> {
  const role = (): { kcmArgs: string[]; kubeletArgs: string[]; apiServerArgs: string[] } => ({
    kcmArgs: [],
    kubeletArgs: [],
    apiServerArgs: [],
  });
  return {
    distro: 'rke2',
    source: 'cluster.yaml',
    kubernetesVersion: 'v1.30.14+rke2r4',
    cloudProviderName: 'external',
    roles: {
      'control-plane': { ...role(), ...cp },
      etcd: role(),
      worker: role(),
    },
  };
}

describe('upgrade-path', () => {
  it('reads every value of a repeated flag in rke2.io/node-args', () => {
    const raw = JSON.stringify([
      'server',
      '--kube-apiserver-arg',
      'a=1',
      '--kube-apiserver-arg=b=2',
      '--x',
      'y',
    ]);
    expect(nodeArgValues(raw, 'kube-apiserver-arg')).toEqual(['a=1', 'b=2']);
    expect(nodeArgValues('not json', 'kube-apiserver-arg')).toEqual([]);
  });

  it('passes without a target, and for targets before the releases that break settings', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'upgrade-path',
      ).status,
    ).toBe('pass');
    const s = snapshotWith((m) => {
      external(m);
      withApiserverArgs(m, ['cloud-provider=external']);
    });
    expect(resultOf(s, 'upgrade-path', { targetVersion: '1.32' }).status).toBe('pass');
  });

  it('fails an external RKE2 cluster whose kube-apiserver-arg carries cloud-provider when the target is 1.33+', () => {
    const s = snapshotWith((m) => {
      external(m);
      withApiserverArgs(m, ['cloud-provider=external', 'audit-log-maxage=30']);
    });
    const r = resultOf(s, 'upgrade-path', { targetVersion: '1.33' });
    expect(r.status).toBe('fail');
    expect(r.message).toContain('kube-apiserver 1.33 exits with "unknown flag: --cloud-provider"');
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'config',
      description: expect.stringContaining(
        'remove cloud-provider and cloud-config from every kube-apiserver-arg',
      ),
    });
    expect(r.details[0]).toContain('kube-apiserver-arg: cloud-provider=external');
  });

  it('says what uproot\u2019s plan does when the cluster still runs the in-tree provider', () => {
    const s = snapshotWith((m) => withApiserverArgs(m, ['cloud-provider=aws']));
    const r = resultOf(s, 'upgrade-path', { targetVersion: '1.33' });
    expect(r.status).toBe('pass');
    expect(r.message).toContain('its upgrade-kubernetes-1.33 step removes them from kube-apiserver-arg');
  });

  it('reads kube-apiserver pods elsewhere (kubeadm), with the manifest edit as the fix', () => {
    const s = snapshotWith((m) => {
      external(m);
      for (const n of okValue(m.kube.nodes)) {
        n.annotations = {};
        n.kubeletVersion = 'v1.26.15';
      }
      okValue(m.kube.componentPods).push({
        namespace: 'kube-system',
        name: 'kube-apiserver-cp1',
        component: 'kube-apiserver',
        nodeName: 'cp1',
        image: 'registry.k8s.io/kube-apiserver:v1.26.15',
        args: ['kube-apiserver', '--cloud-provider=external', '--cloud-config=/etc/kubernetes/aws.conf'],
      });
    });
    const r = resultOf(s, 'upgrade-path', { targetVersion: 'v1.33.13' });
    expect(r.status).toBe('fail');
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'manual',
      steps: [
        expect.stringContaining('/etc/kubernetes/manifests/kube-apiserver.yaml'),
        expect.stringContaining('kubeadm-config'),
      ],
    });
  });

  it('fails RKE2 targets of 1.36+ without disable-cloud-controller (rancher/rke2#10351), from the definition or the servers', () => {
    const live = snapshotWith((m) => {
      external(m);
      withApiserverArgs(m, []);
    });
    const r = resultOf(live, 'upgrade-path', { targetVersion: '1.36' });
    expect(r.status).toBe('fail');
    expect(r.message).toContain('RKE2 from v1.36.0+rke2r1 runs its own cloud controller');
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'config',
      snippet: expect.stringContaining('disable-cloud-controller: true'),
    });
    const set = snapshotWith((m) => {
      external(m);
      withApiserverArgs(m, []);
      m.kube.clusterDefinition = { state: 'ok', value: rke2Definition({ disableCloudController: true }) };
    });
    expect(resultOf(set, 'upgrade-path', { targetVersion: '1.36' }).status).toBe('pass');
    const unset = snapshotWith((m) => {
      external(m);
      m.kube.clusterDefinition = { state: 'ok', value: rke2Definition({}) };
    });
    expect(resultOf(unset, 'upgrade-path', { targetVersion: '1.36' }).details).toContain(
      'cluster.yaml: disable-cloud-controller is not set for the control-plane machines',
    );
  });
});
