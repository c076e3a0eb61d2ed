import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';
import type { DaemonSetFacts } from '../model/snapshot.js';
import type { Toleration } from '../model/taint.js';

const UNINITIALIZED: Toleration = {
  key: 'node.cloudprovider.kubernetes.io/uninitialized',
  value: 'true',
  effect: 'NoSchedule',
};

const CONTROL_PLANE: Toleration = { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' };
const ETCD: Toleration = { key: 'node-role.kubernetes.io/etcd', operator: 'Exists', effect: 'NoExecute' };
const SELECT_CP = { 'node-role.kubernetes.io/control-plane': 'true' };
const CP_NODES = [
  'ip-10-0-0-10.us-west-2.compute.internal',
  'ip-10-0-64-10.us-west-2.compute.internal',
  'ip-10-0-128-10.us-west-2.compute.internal',
];

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

/** The chart as an RKE2 HelmChart in the cluster, with these values. */
const installChart = (m: MutableSnapshot, valuesContent: string) =>
  (m.kube.helmCharts = {
    state: 'ok',
    value: [
      {
        namespace: 'kube-system',
        name: 'aws-cloud-controller-manager',
        chart: 'aws-cloud-controller-manager',
        valuesContent,
      },
    ],
  });

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
      'ip-10-0-0-10.us-west-2.compute.internal: nodeSelector node-role.kubernetes.io/control-plane="" not matched; untolerated node-role.kubernetes.io/etcd:NoExecute',
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
        ccm({ 'node-role.kubernetes.io/control-plane': 'true' }, [UNINITIALIZED, CONTROL_PLANE, ETCD]),
      ),
    );
    expect(resultOf(s, 'control-plane-scheduling').status).toBe('pass');
  });

  it('fails without the uninitialized toleration (new nodes would never be initialized)', () => {
    const s = snapshotWith((m) =>
      install(m, ccm({ 'node-role.kubernetes.io/control-plane': 'true' }, [CONTROL_PLANE, ETCD])),
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
      installChart(m, values);
    });
    const r = resultOf(s, 'control-plane-scheduling');
    expect(r.message).toContain(
      'node-role.kubernetes.io/control-plane="", node-role.kubernetes.io/controlplane="true" matches none',
    );
    const fix = r.status === 'fail' ? r.fixes[0] : undefined;
    expect(fix?.type === 'config' && fix.snippet).toContain('node-role.kubernetes.io/control-plane: null');
    expect(fix?.type === 'config' && fix.snippet).toContain('key: node-role.kubernetes.io/etcd');
  });

  it("fails seed 004's RKE2 values on Rancher's combined etcd + control-plane nodes: `value: 'true'` tolerates neither taint", () => {
    const s = snapshotWith((m) =>
      install(
        m,
        ccm(SELECT_CP, [
          UNINITIALIZED,
          { key: 'node-role.kubernetes.io/control-plane', value: 'true', effect: 'NoSchedule' },
        ]),
      ),
    );
    const r = resultOf(s, 'control-plane-scheduling');
    expect(r.status).toBe('fail');
    expect(r.message).toBe(
      `DaemonSet kube-system/aws-cloud-controller-manager selects 3 control-plane nodes but tolerates none of them: node-role.kubernetes.io/control-plane:NoSchedule on ${CP_NODES.join(', ')}; node-role.kubernetes.io/etcd:NoExecute on ${CP_NODES.join(', ')}; add the tolerations {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}, {key: node-role.kubernetes.io/etcd, operator: Exists, effect: NoExecute}`,
    );
  });

  it('fails chart values that miss the etcd taint, with the whole tolerations list to set as the action', () => {
    const values = [
      'nodeSelector:',
      "  node-role.kubernetes.io/control-plane: 'true'",
      'tolerations:',
      "  - {key: node.cloudprovider.kubernetes.io/uninitialized, value: 'true', effect: NoSchedule}",
      '  - {key: node-role.kubernetes.io/control-plane, effect: NoSchedule}',
    ].join('\n');
    const s = snapshotWith((m) => {
      installChart(m, values);
    });
    const r = resultOf(s, 'control-plane-scheduling');
    expect(r.status).toBe('fail');
    expect(r.message).toContain('selects 3 control-plane nodes but tolerates none of them');
    expect(r.message).toContain(`node-role.kubernetes.io/etcd:NoExecute on ${CP_NODES.join(', ')}`);
    expect(r.message).not.toContain('control-plane:NoSchedule on');
    expect(r.message).toContain(
      'add the toleration {key: node-role.kubernetes.io/etcd, operator: Exists, effect: NoExecute}',
    );
    expect(r.status === 'fail' && r.fixes).toEqual([
      {
        type: 'config',
        description: expect.stringContaining(
          'tolerate node-role.kubernetes.io/etcd:NoExecute in the chart values',
        ),
        target:
          'aws-cloud-controller-manager chart values (HelmChart kube-system/aws-cloud-controller-manager spec.valuesContent)',
        snippet: [
          'tolerations:',
          '  - key: node.cloudprovider.kubernetes.io/uninitialized',
          '    value: "true"',
          '    effect: NoSchedule',
          '  - key: node-role.kubernetes.io/control-plane',
          '    effect: NoSchedule',
          '  - key: node-role.kubernetes.io/etcd',
          '    operator: Exists',
          '    effect: NoExecute',
          '',
        ].join('\n'),
        commands: [],
      },
    ]);
  });

  it('warns when some selected nodes carry a taint it does not tolerate, naming them', () => {
    const s = snapshotWith((m) => {
      // Separate pools for two of them: control-plane only, no etcd taint.
      for (const n of okValue(m.kube.nodes).slice(1, 3)) {
        delete n.labels['node-role.kubernetes.io/etcd'];
        n.taints = [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }];
      }
      install(m, ccm(SELECT_CP, [UNINITIALIZED, CONTROL_PLANE]));
    });
    const r = resultOf(s, 'control-plane-scheduling');
    expect(r.status).toBe('warn');
    expect(r.message).toBe(
      `DaemonSet kube-system/aws-cloud-controller-manager tolerates 2 of the 3 control-plane nodes it selects: node-role.kubernetes.io/etcd:NoExecute on ${CP_NODES[0]}; add the toleration {key: node-role.kubernetes.io/etcd, operator: Exists, effect: NoExecute}`,
    );
    expect(r.status === 'warn' && r.fixes[0]).toMatchObject({
      type: 'commands',
      commands: [
        `kubectl -n kube-system patch daemonset aws-cloud-controller-manager --type=json -p '[{"op":"add","path":"/spec/template/spec/tolerations","value":[{"key":"node.cloudprovider.kubernetes.io/uninitialized","value":"true","effect":"NoSchedule"},{"key":"node-role.kubernetes.io/control-plane","operator":"Exists"},{"key":"node-role.kubernetes.io/etcd","operator":"Exists","effect":"NoExecute"}]}]'`,
      ],
    });
  });

  it('passes values without the etcd toleration when etcd has its own pool (the CCM never selects those nodes)', () => {
    const s = snapshotWith((m) => {
      for (const n of okValue(m.kube.nodes).slice(0, 3)) {
        delete n.labels['node-role.kubernetes.io/etcd'];
        n.taints = [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }];
      }
      for (const n of okValue(m.kube.nodes).slice(3, 5)) {
        n.labels = { 'node-role.kubernetes.io/etcd': 'true' };
        n.taints = [{ key: 'node-role.kubernetes.io/etcd', effect: 'NoExecute' }];
      }
      install(m, ccm(SELECT_CP, [UNINITIALIZED, CONTROL_PLANE]));
    });
    expect(resultOf(s, 'control-plane-scheduling').status).toBe('pass');
  });

  it("on RKE, seed 004's values tolerate controlplane=true but not etcd=true:NoExecute", () => {
    const s = snapshotWith((m) => {
      asRke(m);
      install(
        m,
        ccm({ 'node-role.kubernetes.io/controlplane': 'true' }, [
          UNINITIALIZED,
          { key: 'node-role.kubernetes.io/controlplane', value: 'true', effect: 'NoSchedule' },
        ]),
      );
    });
    const r = resultOf(s, 'control-plane-scheduling');
    expect(r.status).toBe('fail');
    expect(r.message).toContain(`node-role.kubernetes.io/etcd=true:NoExecute on ${CP_NODES.join(', ')}`);
    expect(r.message).not.toContain('controlplane=true:NoSchedule on');
  });

  it("before install, fails when uproot's values would not tolerate a taint of every control-plane node", () => {
    const s = snapshotWith((m) => {
      for (const n of okValue(m.kube.nodes).slice(0, 3))
        n.taints.push({ key: 'CriticalAddonsOnly', value: 'true', effect: 'NoExecute' });
    });
    const r = resultOf(s, 'control-plane-scheduling');
    expect(r.status).toBe('fail');
    expect(r.message).toContain(
      "no CCM installed yet, and the CCM of uproot's plan selects 3 control-plane nodes but tolerates none of them: CriticalAddonsOnly=true:NoExecute on",
    );
    expect(r.message).toContain(
      'add the toleration {key: CriticalAddonsOnly, operator: Exists, effect: NoExecute}',
    );
    const fix = r.status === 'fail' ? r.fixes[0] : undefined;
    expect(fix?.type === 'config' && fix.target).toContain("uproot's plan keeps its tolerations");
  });

  it('skips without visible control-plane nodes', () => {
    const s = snapshotWith((m) => okValue(m.kube.nodes).forEach((n) => (n.labels = {})));
    expect(resultOf(s, 'control-plane-scheduling').status).toBe('skip');
  });
});
