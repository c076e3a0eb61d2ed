import { describe, expect, it } from 'vitest';
import { distroFacts } from '../../core/distros/distro-facts.js';
import type { Distro, Gate } from '../../core/model/plan-types.js';
import { plan } from '../testing/plan-fixtures.js';
import { evaluateGate, readGateSnapshot, type GateContext } from './evaluate-gate.js';
import type { ComponentPodFacts, GateReader, ManagerComponent } from './gate-facts.js';
import { leaseRecordsOf } from './gate-runner.js';
import {
  CCM,
  KCM,
  MIG,
  T0,
  at,
  managerPod,
  timelineOf,
  took,
} from '../../core/ownership/ownership-test-support.js';

const gate: Gate = { type: 'no-ownership-overlap' };

function reader(pods: Partial<Record<ManagerComponent, ComponentPodFacts[]>> | Error) {
  const asked: ManagerComponent[] = [];
  const unused = (): never => {
    throw new Error('not read by this gate');
  };
  const r: GateReader = {
    daemonSet: unused,
    nodes: unused,
    leases: unused,
    clusterObject: unused,
    loadBalancerServices: unused,
    canI: unused,
    controlPlanePods: unused,
    serverVersion: unused,
    componentPods: async (component) => {
      asked.push(component);
      if (pods instanceof Error) throw pods;
      return pods[component] ?? [];
    },
  };
  return { reader: r, asked };
}

const timeline = timelineOf([took(KCM, 'cp1_k', 0), took(CCM, 'cp2_c', 10), took(MIG, 'cp2_c', 20)], 60);
const ctx = (distro: Distro): GateContext => ({
  facts: distroFacts(distro),
  controlPlaneSelector: 'node-role.kubernetes.io/control-plane=true',
  baseline: [],
  timeline,
  history: { plan: plan([], distro), steps: [] },
});
const ccmPod = managerPod(CCM, 'cp2', ['--cloud-provider=aws', '--enable-leader-migration'], {
  version: '1.26.11',
});

describe('no-ownership-overlap reads the managers\u2019 pods and judges with them', () => {
  it('reads both managers\u2019 pods and passes when the KCM is external', async () => {
    const { reader: r, asked } = reader({
      [KCM]: [managerPod(KCM, 'cp1', ['--cloud-provider=external'], { version: '1.27.3' })],
      [CCM]: [ccmPod],
    });
    const snapshot = await readGateSnapshot(gate, r, ctx('kubeadm'));
    expect(asked).toEqual([KCM, CCM]);
    expect(evaluateGate(gate, snapshot, ctx('kubeadm'), T0 + 60_000)).toMatchObject({
      type: 'pass',
      detail: expect.stringMatching(/judged 2 by their pods/),
    });
  });
  it('on RKE (KCM runs in docker) reads only the CCM pods and judges the KCM by the plan', async () => {
    const { reader: r, asked } = reader({ [CCM]: [ccmPod] });
    const snapshot = await readGateSnapshot(gate, r, ctx('rke'));
    expect(asked).toEqual([CCM]);
    // No step has started: the KCM is judged as before the migration (in-tree), which overlaps the CCM.
    expect(evaluateGate(gate, snapshot, ctx('rke'), T0 + 60_000)).toMatchObject({
      type: 'fail',
      reason: expect.stringMatching(
        /^overlapping ownership: cloud-node-lifecycle, route, service ran in cp1_k/,
      ),
      fix: expect.stringMatching(
        /^give every manager that runs cloud-node-lifecycle, route, service --enable-leader-migration/,
      ),
    });
  });
  it('judges without pods when they cannot be read', async () => {
    const { reader: r } = reader(new Error('connection reset'));
    const snapshot = await readGateSnapshot(gate, r, ctx('rke2'));
    expect(snapshot).toEqual({ type: 'no-ownership-overlap' });
    expect(evaluateGate(gate, snapshot, ctx('rke2'), T0 + 60_000)).toMatchObject({
      type: 'fail',
      reason: expect.stringMatching(/cp1_k .* and cp2_c|cp2_c .* and cp1_k/),
    });
  });
});

describe('the gate runner\u2019s lease timeline', () => {
  it('keeps which step\u2019s gate looked (it orders looks made at the same instant)', () => {
    const leases = [{ namespace: 'kube-system', name: CCM, holderIdentity: 'cp2_c', renewTime: at(200) }];
    expect(leaseRecordsOf(leases, new Set([CCM]), T0 + 200_000, 'switch-to-external')).toEqual([
      expect.objectContaining({ holder: 'cp2_c', observedAt: at(200), step: 'switch-to-external' }),
    ]);
    expect(leaseRecordsOf(leases, new Set([CCM]), T0 + 200_000)[0]).not.toHaveProperty('step');
  });
});
