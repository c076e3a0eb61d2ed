import { describe, expect, it } from 'vitest';
import { ROLE_TAINTS, isTolerated } from '../scheduling/index.js';
import type { Toleration } from '../model/taint.js';
import { ensureCcmValues, renderCcmValues, type ControlPlaneFlavor } from './chart-values.js';

const UNINITIALIZED = {
  key: 'node.cloudprovider.kubernetes.io/uninitialized',
  value: 'true',
  effect: 'NoSchedule',
};
const options = (flavor: ControlPlaneFlavor) => ({ flavor, imageTag: 'v1.26.11', leaderMigration: true });
const tolerationsOf = (values: Record<string, unknown>) => values.tolerations as Toleration[];

/** Seed 004's tolerations for RKE2 (`value: 'true'`, no etcd). */
const SEED_RKE2 = [
  { effect: 'NoSchedule', key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true' },
  { effect: 'NoSchedule', value: 'true', key: 'node-role.kubernetes.io/control-plane' },
];

describe('the CCM chart values of the plan tolerate the role taints', () => {
  it.each<ControlPlaneFlavor>(['rke2', 'rke'])(
    '%s: fresh values tolerate every role taint and uninitialized',
    (flavor) => {
      const tolerations = tolerationsOf(renderCcmValues(options(flavor)));
      for (const taint of [...ROLE_TAINTS[flavor], UNINITIALIZED])
        expect(isTolerated(taint, tolerations)).toBe(true);
      expect(tolerations).toContainEqual({
        effect: 'NoExecute',
        key: 'node-role.kubernetes.io/etcd',
        operator: 'Exists',
      });
    },
  );

  it("adds Exists tolerations to seed 004's values, which tolerate neither of Rancher's RKE2 taints", () => {
    for (const taint of ROLE_TAINTS.rke2) expect(isTolerated(taint, SEED_RKE2)).toBe(false);
    const tolerations = tolerationsOf(ensureCcmValues({ tolerations: SEED_RKE2 }, options('rke2')));
    expect(tolerations).toEqual([
      ...SEED_RKE2,
      { effect: 'NoSchedule', key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' },
      { effect: 'NoExecute', key: 'node-role.kubernetes.io/etcd', operator: 'Exists' },
    ]);
  });

  it('adds nothing when the user already tolerates every taint', () => {
    const all = [{ operator: 'Exists' }];
    expect(tolerationsOf(ensureCcmValues({ tolerations: all }, options('rke2')))).toEqual(all);
    const exact = [
      { key: 'node.cloudprovider.kubernetes.io/uninitialized', operator: 'Exists' },
      { key: 'node-role.kubernetes.io/controlplane', value: 'true', effect: 'NoSchedule' },
      { key: 'node-role.kubernetes.io/etcd', value: 'true', effect: 'NoExecute' },
    ];
    expect(tolerationsOf(ensureCcmValues({ tolerations: exact }, options('rke')))).toEqual(exact);
  });
});
