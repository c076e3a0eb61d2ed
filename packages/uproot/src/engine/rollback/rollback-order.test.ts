import { describe, expect, it } from 'vitest';
import type { Gate } from '../../core/model/plan-types.js';
import { flagsGate as flags, plan, step } from '../testing/plan-fixtures.js';
import { gatesAfterUndo } from './rollback-order.js';

const rollout: Gate = { type: 'cluster-rolled-out', timeoutSeconds: 60 };
const rbac: Gate = {
  type: 'rbac-allows',
  user: 'u',
  verbs: ['get'],
  resource: 'leases',
  namespace: 'kube-system',
  name: 'x',
  timeoutSeconds: 60,
} as unknown as Gate;
const overlap: Gate = { type: 'no-ownership-overlap' };

const p = plan([
  step('grant-migration-lease', [], [rbac]),
  step('enable-leader-migration', [], [rollout, flags('aws', true)]),
  step('cordon-control-plane', [], [{ type: 'nodes-cordoned', selector: 'cp=true', timeoutSeconds: 60 }]),
  step('install-ccm', [], [overlap]),
  step('switch-to-external', [], [rollout, flags('external', false), overlap]),
]);
const byId = (id: string) => p.steps.find((s) => s.id === id)!;

describe('gatesAfterUndo', () => {
  it('undoing the first flag change waits for the roll and for the in-tree flags without leader migration', () => {
    expect(gatesAfterUndo(p, byId('enable-leader-migration'))).toEqual([rollout, flags('aws', false), rbac]);
  });

  it('undoing a later flag change expects the flags the last earlier gate expected', () => {
    expect(gatesAfterUndo(p, byId('switch-to-external'))).toEqual([rollout, flags('aws', true), overlap]);
  });

  it('a step without a roll gets the previous step’s gates; the first step only the invariants', () => {
    expect(gatesAfterUndo(p, byId('cordon-control-plane'))).toEqual([rollout, flags('aws', true)]);
    expect(gatesAfterUndo(p, byId('grant-migration-lease'))).toEqual([overlap]);
  });

  it('never waits for cordoned nodes between undos (Rancher’s rolls uncordon them)', () => {
    expect(gatesAfterUndo(p, byId('install-ccm'))).toEqual([]);
  });
});
