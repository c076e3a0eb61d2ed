import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';
import type { DaemonSetFacts, Toleration } from './snapshot.js';

const UNINITIALIZED: Toleration = {
  key: 'node.cloudprovider.kubernetes.io/uninitialized',
  value: 'true',
  effect: 'NoSchedule',
};

function ccm(nodeSelector: Record<string, string>, tolerations: Toleration[]): DaemonSetFacts {
  return {
    namespace: 'kube-system',
    name: 'aws-cloud-controller-manager',
    labels: {},
    containers: [
      { name: 'ccm', image: 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.11', args: [] },
    ],
    nodeSelector,
    tolerations,
    hostNetwork: true,
  };
}

const install = (m: MutableSnapshot, ds: DaemonSetFacts) =>
  (m.kube.daemonSets = { state: 'ok', value: [structuredClone(ds) as never] });

/** RKE's labels and taints on the control plane. */
function asRke(m: MutableSnapshot): void {
  for (const n of okValue(m.kube.nodes)) {
    delete n.annotations['rke2.io/node-args'];
    n.kubeletVersion = 'v1.26.15';
    if ('node-role.kubernetes.io/control-plane' in n.labels) {
      n.labels = { 'node-role.kubernetes.io/controlplane': 'true', 'node-role.kubernetes.io/etcd': 'true' };
      n.taints = [
        { key: 'node-role.kubernetes.io/controlplane', value: 'true', effect: 'NoSchedule' },
        { key: 'node-role.kubernetes.io/etcd', value: 'true', effect: 'NoExecute' },
      ];
    }
  }
}

describe('control-plane-scheduling', () => {
  it("passes before install with uproot's values, and says the chart's defaults would not fit", () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'control-plane-scheduling',
      ),
    ).toMatchObject({
      status: 'pass',
      message: expect.stringContaining("the chart's defaults would match none of them"),
    });
  });

  it("fails the chart's default nodeSelector on RKE2 and proposes a matching patch", () => {
    const s = snapshotWith((m) =>
      install(
        m,
        ccm({ 'node-role.kubernetes.io/control-plane': '' }, [
          UNINITIALIZED,
          { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
        ]),
      ),
    );
    const r = resultOf(s, 'control-plane-scheduling');
    expect(r).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('matches none of the 3 control-plane nodes'),
    });
    expect(r.details).toContain(
      'ip-10-0-0-10.us-west-2.compute.internal: nodeSelector node-role.kubernetes.io/control-plane="" not matched; untolerated node-role.kubernetes.io/control-plane=true:NoSchedule',
    );
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'commands',
      commands: [
        expect.stringContaining(
          '/spec/template/spec/nodeSelector","value":{"node-role.kubernetes.io/control-plane":"true"}',
        ),
      ],
    });
  });

  it('passes a DaemonSet whose selector and tolerations fit every control-plane node', () => {
    const s = snapshotWith((m) =>
      install(
        m,
        ccm({ 'node-role.kubernetes.io/control-plane': 'true' }, [
          UNINITIALIZED,
          { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' },
        ]),
      ),
    );
    expect(resultOf(s, 'control-plane-scheduling').status).toBe('pass');
  });

  it('fails without the uninitialized toleration (new nodes would never be initialized)', () => {
    const s = snapshotWith((m) =>
      install(
        m,
        ccm({ 'node-role.kubernetes.io/control-plane': 'true' }, [
          { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' },
        ]),
      ),
    );
    expect(resultOf(s, 'control-plane-scheduling').message).toContain(
      'does not tolerate node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule',
    );
  });

  it('warns a selector that also lands on workers', () => {
    const s = snapshotWith((m) => install(m, ccm({}, [{ operator: 'Exists' }])));
    expect(resultOf(s, 'control-plane-scheduling')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('also fits 3 non-control-plane nodes'),
    });
  });

  it('on RKE, a HelmChart that only adds controlplane=true keeps the default key (Helm merges maps) and fits nothing', () => {
    const values =
      "nodeSelector:\n  node-role.kubernetes.io/controlplane: 'true'\ntolerations:\n  - {key: node.cloudprovider.kubernetes.io/uninitialized, value: 'true', effect: NoSchedule}\n  - {key: node-role.kubernetes.io/controlplane, value: 'true', effect: NoSchedule}\n";
    const s = snapshotWith((m) => {
      asRke(m);
      m.kube.helmCharts = {
        state: 'ok',
        value: [
          {
            namespace: 'kube-system',
            name: 'aws-cloud-controller-manager',
            chart: 'aws-cloud-controller-manager',
            valuesContent: values,
          },
        ],
      };
    });
    const r = resultOf(s, 'control-plane-scheduling');
    expect(r.message).toContain(
      'node-role.kubernetes.io/control-plane="", node-role.kubernetes.io/controlplane="true" matches none',
    );
    const fix = r.status === 'fail' ? r.fixes[0] : undefined;
    expect(fix?.type === 'config' && fix.snippet).toContain('node-role.kubernetes.io/control-plane: null');
    expect(fix?.type === 'config' && fix.snippet).toContain('key: node-role.kubernetes.io/etcd');
  });

  it('skips without visible control-plane nodes', () => {
    const s = snapshotWith((m) => okValue(m.kube.nodes).forEach((n) => (n.labels = {})));
    expect(resultOf(s, 'control-plane-scheduling').status).toBe('skip');
  });
});
