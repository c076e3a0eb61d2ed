import { describe, expect, it } from 'vitest';
import { expandIamActions } from '@cloud-copilot/iam-expand';
import { decodePolicyDocument } from './policy-document.js';
import { evaluateRole } from './evaluate-role.js';
import { ALL_EVALUATED_ACTIONS, CONTROL_PLANE_ACTIONS, NODE_ACTIONS } from './required-actions.js';
import type { IamRoleFacts } from '../model/snapshot.js';

const ACCOUNT = '123456789012';
const role = (statements: unknown[], boundary?: unknown[]): IamRoleFacts => ({
  name: 'r',
  arn: `arn:aws:iam::${ACCOUNT}:role/r`,
  policies: [{ name: 'p', kind: 'inline', document: { Version: '2012-10-17', Statement: statements } }],
  ...(boundary
    ? {
        permissionsBoundary: {
          name: 'b',
          kind: 'managed',
          arn: 'arn:aws:iam::123456789012:policy/b',
          document: { Version: '2012-10-17', Statement: boundary },
        },
      }
    : {}),
});

async function decisions(r: IamRoleFacts, actions: string[]): Promise<Record<string, string>> {
  const e = await evaluateRole(r, ACCOUNT, actions);
  if (e.state !== 'ok') throw new Error(e.reason);
  return Object.fromEntries(Object.entries(e.value.actions).map(([a, v]) => [a, v.decision]));
}

describe('required actions', () => {
  it("are seed 004's lists, every one a real IAM action", async () => {
    expect(CONTROL_PLANE_ACTIONS).toHaveLength(53);
    expect(NODE_ACTIONS).toHaveLength(9);
    expect(new Set(CONTROL_PLANE_ACTIONS).size).toBe(CONTROL_PLANE_ACTIONS.length);
    // iam-expand drops actions it does not know, so an unknown (misspelt) action expands to [].
    for (const action of ALL_EVALUATED_ACTIONS) expect(await expandIamActions(action)).toEqual([action]);
    expect(await expandIamActions('ec2:DescribeInstancez')).toEqual([]);
  });
});

describe('decodePolicyDocument', () => {
  it('decodes URL-encoded documents and leaves plain JSON alone (even with a literal %)', () => {
    const doc = {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'ec2:Describe*', Resource: '*' }],
    };
    expect(decodePolicyDocument(encodeURIComponent(JSON.stringify(doc)))).toEqual(doc);
    const literal = { Statement: [{ Sid: '100%', Effect: 'Allow' }] };
    expect(decodePolicyDocument(JSON.stringify(literal))).toEqual(literal);
  });
});

describe('evaluateRole', () => {
  it('honours wildcards, NotAction and explicit denies', async () => {
    const r = role([
      { Effect: 'Allow', Action: 'ec2:Describe*', Resource: '*' },
      { Effect: 'Allow', NotAction: ['iam:*', 'kms:*'], Resource: '*' },
      { Sid: 'NoTags', Effect: 'Deny', Action: 'ec2:*Tags', Resource: '*' },
    ]);
    expect(
      await decisions(r, [
        'ec2:DescribeInstances',
        'elasticloadbalancing:CreateListener',
        'kms:DescribeKey',
        'ec2:CreateTags',
      ]),
    ).toEqual({
      'ec2:DescribeInstances': 'allowed',
      'elasticloadbalancing:CreateListener': 'allowed',
      'kms:DescribeKey': 'implicit-deny',
      'ec2:CreateTags': 'explicit-deny',
    });
    const e = await evaluateRole(r, ACCOUNT, ['ec2:CreateTags', 'ec2:DescribeRegions']);
    expect(e.state === 'ok' && e.value.actions).toMatchObject({
      'ec2:CreateTags': { deniedBy: ['inline policy p statement NoTags (ec2:*Tags)'] },
      'ec2:DescribeRegions': { grantedBy: 'inline policy p statement 1 (ec2:Describe*)' },
    });
  });

  it('applies a permissions boundary', async () => {
    const r = role(
      [{ Effect: 'Allow', Action: '*', Resource: '*' }],
      [{ Effect: 'Allow', Action: 'ec2:*', Resource: '*' }],
    );
    expect(await decisions(r, ['ec2:CreateTags', 'elasticloadbalancing:AddTags'])).toEqual({
      'ec2:CreateTags': 'allowed',
      'elasticloadbalancing:AddTags': 'implicit-deny',
    });
  });

  it('reports a document the simulator rejects as unavailable, not as a crash', async () => {
    const e = await evaluateRole(role([{ Effect: 'Maybe', Action: 'ec2:*', Resource: '*' }]), ACCOUNT, [
      'ec2:CreateTags',
    ]);
    expect(e).toMatchObject({
      state: 'unavailable',
      reason: expect.stringContaining('could not be evaluated'),
    });
  });
});
