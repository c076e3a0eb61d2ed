import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { NodeRole } from '../layout/cluster-layout.js';
import { RestartCounter, journeyRestarts } from './restart-count.js';

function machine(name: string, roles: NodeRole[], restarts: string[]) {
  const restartCounts = new RestartCounter();
  for (const p of restarts) restartCounts.note(p);
  return { instance: { machineName: name, roles }, nodeName: `${name}.internal`, restartCounts };
}

describe('the twin\u2019s restart count', () => {
  it('counts a machine by its most restarted process, each process on its own', () => {
    const m = machine(
      'cp-0',
      ['etcd', 'control-plane'],
      ['kube-controller-manager', 'kubelet', 'kube-controller-manager', 'cloud-controller-manager'],
    );
    expect(m.restartCounts.byProcess()).toEqual({
      'cloud-controller-manager': 1,
      'kube-controller-manager': 2,
      kubelet: 1,
    });
    expect(m.restartCounts.total()).toBe(2);
    expect(new RestartCounter().total()).toBe(0);
  });

  it('reports the most per role, a combined machine counting for each of its roles', () => {
    const report = journeyRestarts([
      machine('cp-0', ['etcd', 'control-plane'], ['rke2-server', 'rke2-server']),
      machine('cp-1', ['etcd', 'control-plane'], ['rke2-server']),
      machine('w-0', ['worker'], ['rke2-agent']),
      machine('w-1', ['worker'], []),
    ]);
    expect(report.maxByRole).toEqual({ etcd: 2, 'control-plane': 2, worker: 1 });
    expect(report.nodes.map((n) => [n.machine, n.restarts])).toEqual([
      ['cp-0', 2],
      ['cp-1', 1],
      ['w-0', 1],
      ['w-1', 0],
    ]);
    expect(report.nodes[3]).toMatchObject({ node: 'w-1.internal', roles: ['worker'], processes: {} });
  });

  it('never reports a role figure below any of its machines\u2019 counts, nor above the largest', () => {
    const roles: NodeRole[][] = [['control-plane'], ['etcd'], ['worker'], ['etcd', 'control-plane']];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            roles: fc.constantFrom(...roles),
            restarts: fc.array(fc.constantFrom('kubelet', 'kube-apiserver', 'rke up'), { maxLength: 12 }),
          }),
          { maxLength: 8 },
        ),
        (machines) => {
          const report = journeyRestarts(machines.map((m, i) => machine(`m${i}`, m.roles, m.restarts)));
          for (const n of report.nodes) {
            for (const role of n.roles) expect(report.maxByRole[role]).toBeGreaterThanOrEqual(n.restarts);
            expect(n.restarts).toBe(Math.max(0, ...Object.values(n.processes)));
          }
          for (const [role, most] of Object.entries(report.maxByRole))
            expect(report.nodes.some((n) => n.roles.includes(role as NodeRole) && n.restarts === most)).toBe(
              true,
            );
        },
      ),
    );
  });
});
