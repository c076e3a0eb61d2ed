import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube-object.js';
import { nodePrinter, nodeRoles, podPrinter, servicePrinter } from './core-printers.js';
import { customResourcePrinter } from './custom-columns.js';
import { humanDuration } from './human-duration.js';
import { evaluateJsonPath } from './jsonpath.js';
import { daemonSetPrinter, leasePrinter } from './other-printers.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const created = '2026-01-01T11:55:00Z';

describe('node printer', () => {
  const node: KubeObject = {
    metadata: {
      name: 'cp-1',
      creationTimestamp: created,
      labels: {
        'node-role.kubernetes.io/control-plane': 'true',
        'node-role.kubernetes.io/etcd': 'true',
        'kubernetes.io/role': 'master',
      },
    },
    spec: { unschedulable: true },
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False' },
        { type: 'Ready', status: 'True' },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.32.4+rke2r1',
        osImage: 'Ubuntu',
        kernelVersion: '6.1',
        containerRuntimeVersion: 'containerd://1.7',
      },
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    },
  };

  it('has the kubectl column set, wide columns at priority 1', () => {
    expect(nodePrinter.columns.map((c) => c.name)).toEqual([
      'Name',
      'Status',
      'Roles',
      'Age',
      'Version',
      'Internal-IP',
      'External-IP',
      'OS-Image',
      'Kernel-Version',
      'Container-Runtime',
    ]);
    expect(nodePrinter.columns.filter((c) => c.priority === 1)).toHaveLength(5);
  });

  it('prints roles, Ready + SchedulingDisabled, age and version', () => {
    expect(nodePrinter.row(node, NOW)).toEqual([
      'cp-1',
      'Ready,SchedulingDisabled',
      'control-plane,etcd,master',
      '5m',
      'v1.32.4+rke2r1',
      '10.0.0.1',
      '<none>',
      'Ubuntu',
      '6.1',
      'containerd://1.7',
    ]);
  });

  it('prints NotReady and Unknown', () => {
    expect(
      nodePrinter.row(
        { metadata: { name: 'a' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
        NOW,
      )[1],
    ).toBe('NotReady');
    expect(nodePrinter.row({ metadata: { name: 'b' } }, NOW)[1]).toBe('Unknown');
    expect(nodeRoles({})).toBe('<none>');
  });
});

describe('other printers', () => {
  it('prints DaemonSet counts and node selector', () => {
    const ds: KubeObject = {
      metadata: { name: 'ccm', creationTimestamp: created },
      spec: {
        selector: { matchLabels: { app: 'ccm' } },
        template: {
          spec: {
            nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' },
            containers: [{ name: 'c', image: 'i' }],
          },
        },
      },
      status: {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 2,
        updatedNumberScheduled: 1,
        numberAvailable: 2,
      },
    };
    expect(daemonSetPrinter.columns.slice(0, 8).map((c) => c.name.toUpperCase())).toEqual([
      'NAME',
      'DESIRED',
      'CURRENT',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'NODE SELECTOR',
      'AGE',
    ]);
    expect(daemonSetPrinter.row(ds, NOW)).toEqual([
      'ccm',
      3,
      3,
      2,
      1,
      2,
      'node-role.kubernetes.io/control-plane=true',
      '5m',
      'c',
      'i',
      'app=ccm',
    ]);
  });

  it('prints the lease holder', () => {
    expect(
      leasePrinter.row(
        {
          metadata: { name: 'kube-controller-manager', creationTimestamp: created },
          spec: { holderIdentity: 'cp-1_abc' },
        },
        NOW,
      ),
    ).toEqual(['kube-controller-manager', 'cp-1_abc', '5m']);
  });

  it('prints service ports and pending load balancers', () => {
    const svc: KubeObject = {
      metadata: { name: 's' },
      spec: {
        type: 'LoadBalancer',
        clusterIP: '10.43.0.10',
        ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }],
      },
    };
    expect(servicePrinter.row(svc, NOW).slice(0, 5)).toEqual([
      's',
      'LoadBalancer',
      '10.43.0.10',
      '<pending>',
      '80:30080/TCP',
    ]);
  });

  it('prints pod readiness, status and restarts', () => {
    const pod: KubeObject = {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'n1' },
      status: {
        phase: 'Running',
        containerStatuses: [
          { ready: true, restartCount: 2 },
          { ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    };
    expect(podPrinter.row(pod, NOW).slice(0, 4)).toEqual(['p', '1/2', 'CrashLoopBackOff', 3]);
  });
});

describe('custom resource columns', () => {
  it('evaluates CRD columns and falls back to Age', () => {
    const printer = customResourcePrinter([
      { name: 'Ready', type: 'string', jsonPath: '.status.ready' },
      { name: 'Cond', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Count', type: 'integer', jsonPath: '.spec.count' },
    ]);
    const cr = {
      metadata: { name: 'c1' },
      spec: { count: 3.7 },
      status: { ready: true, conditions: [{ type: 'Ready', status: 'True' }] },
    };
    expect(printer.columns.map((c) => c.name)).toEqual(['Name', 'Ready', 'Cond', 'Count']);
    expect(printer.row(cr, NOW)).toEqual(['c1', true, 'True', 3]);
    expect(printer.row({ metadata: { name: 'c2' } }, NOW)).toEqual(['c2', null, null, null]);
    const fallback = customResourcePrinter(undefined);
    expect(fallback.columns.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    expect(fallback.row({ metadata: { name: 'x', creationTimestamp: created } }, NOW)).toEqual([
      'x',
      created,
    ]);
  });

  it('supports indexes, wildcards and quoted keys in JSONPath', () => {
    const obj = { a: [{ b: 1 }, { b: 2 }], m: { 'x.y': 'z' } };
    expect(evaluateJsonPath('.a[*].b', obj)).toEqual([1, 2]);
    expect(evaluateJsonPath('{.a[-1].b}', obj)).toEqual([2]);
    expect(evaluateJsonPath(".m['x.y']", obj)).toEqual(['z']);
    expect(evaluateJsonPath('.a[?(@.b!=1)].b', obj)).toEqual([2]);
  });
});

describe('humanDuration', () => {
  it.each([
    [5_000, '5s'],
    [119_000, '119s'],
    [150_000, '2m30s'],
    [600_000, '10m'],
    [3 * 3600_000 + 5 * 60_000, '3h5m'],
    [30 * 3600_000, '30h'],
    [3 * 86_400_000 + 4 * 3600_000, '3d4h'],
    [45 * 86_400_000, '45d'],
    [800 * 86_400_000, '2y70d'],
  ])('%i ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});
