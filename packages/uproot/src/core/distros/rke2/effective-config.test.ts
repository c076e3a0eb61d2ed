import { describe, expect, it } from 'vitest';
import {
  externalProblems,
  rke2EffectiveConfig,
  rke2EffectiveSettings,
  rke2NodeKinds,
  usesInTreeAws,
} from './effective-config.js';
import { isRoleSelector, roleLabels, selectorMatches, selectorMayMatchRole } from './machine-selector.js';

const cp = {
  matchExpressions: [{ key: 'rke.cattle.io/control-plane-role', operator: 'In', values: ['true'] }],
};

function cluster(global: Record<string, unknown>, entries: unknown[]): unknown {
  return { spec: { rkeConfig: { machineGlobalConfig: global, machineSelectorConfig: entries } } };
}

describe('selectors', () => {
  it('matches like a Kubernetes LabelSelector; no selector matches every machine', () => {
    expect(selectorMatches(undefined, {})).toBe(true);
    expect(selectorMatches(cp, roleLabels(['control-plane']))).toBe(true);
    expect(selectorMatches(cp, roleLabels(['worker']))).toBe(false);
    expect(selectorMatches({ matchLabels: { pool: 'gpu' } }, { pool: 'gpu' })).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['1'] }] }, {})).toBe(
      true,
    );
    expect(selectorMatches({ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, { x: '1' })).toBe(
      false,
    );
    expect(selectorMatches({ matchExpressions: [{ key: 'x', operator: 'Bogus' }] }, { x: '1' })).toBe(false);
  });

  it('recognises the seeds\u2019 role selector and what may match a role', () => {
    expect(isRoleSelector(cp, 'control-plane')).toBe(true);
    expect(
      isRoleSelector({ matchLabels: { 'rke.cattle.io/control-plane-role': 'true' } }, 'control-plane'),
    ).toBe(true);
    expect(isRoleSelector(cp, 'worker')).toBe(false);
    expect(selectorMayMatchRole({ matchLabels: { pool: 'gpu' } }, 'worker')).toBe(true);
    expect(selectorMayMatchRole(cp, 'worker')).toBe(true);
    expect(
      selectorMayMatchRole(
        { matchExpressions: [{ key: 'rke.cattle.io/worker-role', operator: 'DoesNotExist' }] },
        'worker',
      ),
    ).toBe(false);
  });
});

describe('rke2EffectiveConfig', () => {
  it('merges global config and matching entries in order, each key replaced (last wins)', () => {
    const c = cluster({ 'kubelet-arg': ['max-pods=110'], a: 1 }, [
      { config: { 'kubelet-arg': ['x=1'] }, machineLabelSelector: cp },
      { config: { 'kubelet-arg': ['y=2'], a: 2 } },
    ]);
    expect(rke2EffectiveConfig(c, roleLabels(['control-plane']))).toEqual({ 'kubelet-arg': ['y=2'], a: 2 });
    expect(rke2EffectiveConfig(c, roleLabels(['control-plane']), 1)).toEqual({
      'kubelet-arg': ['x=1'],
      a: 1,
    });
  });

  it('derives the cloud provider per component: explicit args win over cloud-provider-name', () => {
    const c = cluster({ 'cloud-provider-name': 'aws' }, [
      {
        config: { 'kube-controller-manager-arg': ['cloud-provider=external', 'enable-leader-migration'] },
        machineLabelSelector: cp,
      },
    ]);
    const s = rke2EffectiveSettings(c, roleLabels(['control-plane']));
    expect(s).toMatchObject({
      kubelet: 'aws',
      kubeControllerManager: 'external',
      kubeApiserver: 'aws',
      kcmLeaderMigration: true,
    });
    expect(s.nodeNameFromInstanceMetadata).toBe(true);
    expect(usesInTreeAws(c)).toBe(true);
  });

  it('accepts a single string where RKE2 takes a list, and enable-leader-migration=false', () => {
    const c = cluster(
      { 'cloud-provider-name': 'external', 'kube-controller-manager-arg': 'enable-leader-migration=false' },
      [],
    );
    expect(rke2EffectiveSettings(c, {}).kcmLeaderMigration).toBe(false);
    expect(rke2NodeKinds(c).every((k) => externalProblems(c, k).length === 0)).toBe(true);
  });

  it('lists machine pools with their labels among the node kinds', () => {
    const c = {
      spec: { rkeConfig: { machinePools: [{ name: 'gpu', workerRole: true, labels: { pool: 'gpu' } }] } },
    };
    const kinds = rke2NodeKinds(c);
    expect(kinds[0]).toMatchObject({
      roles: ['worker'],
      labels: { pool: 'gpu', 'rke.cattle.io/worker-role': 'true' },
    });
    expect(kinds).toHaveLength(8);
  });
});
