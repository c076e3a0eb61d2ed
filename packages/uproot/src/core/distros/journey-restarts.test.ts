/**
 * The fewest restarts that keep the promise (issue 24): one roll to turn leader migration on in the in-tree
 * managers, then one per version step; the CCM's install and leader migration off restart no node. Counted from
 * the plans with each distribution's rule (the twin's count is checked against the same figures by
 * bench/journey.bench.ts and test/integration/demo/journey.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { DistroPlanner, SourceFile } from './distro.js';
import { kubeadmRestarts, planEdits, rke2Restarts, rkeRestarts } from './journey-restarts.js';
import { kubeadmPlanner } from './kubeadm/index.js';
import { rkePlanner } from './rke/index.js';
import { rke2Planner } from './rke2/index.js';
import type { JsonRecord } from '../model/json-value.js';
import { example } from './shared/test-support/examples.js';

const planOf = (planner: DistroPlanner, file: SourceFile, targetVersion?: string) =>
  planner.plan(planner.read([file]), targetVersion ? { targetVersion } : {});

function rke2(targetVersion?: string) {
  const file = example('rke2-cluster.yaml');
  const start = (rke2Planner.read([file]) as unknown as { cluster: JsonRecord }).cluster;
  return rke2Restarts(planEdits(planOf(rke2Planner, file, targetVersion), start, 'rke2-cluster.yaml'));
}

describe('the restarts a journey plan causes', () => {
  it('RKE2 1.26 \u2192 1.33: each server 8 times, each worker 7; the CCM\u2019s install and leader migration off restart nothing', () => {
    const r = rke2('1.33');
    expect({ controlPlane: r.controlPlane, workers: r.workers }).toEqual({ controlPlane: 8, workers: 7 });
    expect(r.steps).toContain('install-ccm: no restart');
    expect(r.steps).toContain('disable-leader-migration: no restart');
    expect(r.steps).toContain('enable-leader-migration: control plane (rke2-server)');
    expect(r.steps).toContain('switch-to-external: control plane (rke2-server) + workers (rke2-agent)');
  });

  it('RKE2: one roll for leader migration, then one per minor, for every target it can reach', () => {
    expect(rke2()).toMatchObject({ controlPlane: 2, workers: 1 });
    for (let minor = 27; minor <= 33; minor++)
      expect(rke2(`1.${minor}`), `to 1.${minor}`).toMatchObject({
        controlPlane: 1 + (minor - 26),
        workers: minor - 26,
      });
  });

  it('RKE 1.26 \u2192 1.31: each control-plane host 6 times, each worker 5 (rke up runs that restart it)', () => {
    const file = example('rke-cluster.yml');
    const start = (rkePlanner.read([file]) as unknown as { document: JsonRecord }).document;
    const r = rkeRestarts(planEdits(planOf(rkePlanner, file, '1.31'), start, 'rke-cluster.yml'));
    expect({ controlPlane: r.controlPlane, workers: r.workers }).toEqual({ controlPlane: 6, workers: 5 });
    expect(r.steps[0]).toBe('enable-leader-migration: control plane (rke up)');
  });

  it('kubeadm 1.26 \u2192 1.33: no process of a control-plane node restarts more than 8 times, the kubelets 7', () => {
    const file = example('kube-controller-manager.yaml');
    const r = kubeadmRestarts(planOf(kubeadmPlanner, file, '1.33'), {
      'kube-controller-manager.yaml': file.text,
    });
    expect(r.processes).toEqual({
      controlPlane: {
        'kube-controller-manager': 8,
        'cloud-controller-manager': 8,
        'kube-apiserver': 7,
        kubelet: 7,
      },
      workers: { kubelet: 7 },
    });
    expect({ controlPlane: r.controlPlane, workers: r.workers }).toEqual({ controlPlane: 8, workers: 7 });
    // The CCM's first start is no restart.
    expect(r.steps.some((s) => s.startsWith('install-ccm'))).toBe(false);
  });
});
