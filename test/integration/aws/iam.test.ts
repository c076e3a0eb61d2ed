import {
  AddRoleToInstanceProfileCommand,
  AttachRolePolicyCommand,
  CreateInstanceProfileCommand,
  CreatePolicyCommand,
  CreateRoleCommand,
  DeleteRolePolicyCommand,
  DetachRolePolicyCommand,
  GetInstanceProfileCommand,
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetRoleCommand,
  GetRolePolicyCommand,
  ListAttachedRolePoliciesCommand,
  ListInstanceProfilesCommand,
  ListRolePoliciesCommand,
  ListRolesCommand,
  PutRolePolicyCommand,
  SimulatePrincipalPolicyCommand,
  paginateListRoles,
} from '@aws-sdk/client-iam';
import { describe, expect, it } from 'vitest';
import { allowAll, emulatorFor, failureOf } from './helpers.js';

const TRUST = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
});
// Characters that must survive IAM's URL encoding: spaces, quotes, slashes, wildcards, unicode.
const POLICY = JSON.stringify({
  Version: '2012-10-17',
  Statement: [
    {
      Sid: 'Describe all',
      Effect: 'Allow',
      Action: ['ec2:Describe*', 'elasticloadbalancing:*'],
      Resource: '*',
    },
    {
      Effect: 'Allow',
      Action: 'iam:CreateServiceLinkedRole',
      Resource: 'arn:aws:iam::*:role/aws-service-role/elasticloadbalancing.amazonaws.com/*',
      Condition: { StringLike: { 'iam:AWSServiceName': 'elasticloadbalancing.amazonaws.com' } },
    },
    {
      Effect: 'Deny',
      Action: 'ec2:TerminateInstances',
      Resource: '*',
      Condition: { StringEquals: { 'aws:RequestTag/note': 'ünïcode & <xml>' } },
    },
  ],
});

describe('IAM', () => {
  it('round-trips policy documents URL-encoded, as AWS returns them', async () => {
    const { clients } = await emulatorFor();
    await clients.iam.send(
      new CreateRoleCommand({
        RoleName: 'control-plane',
        AssumeRolePolicyDocument: TRUST,
        Description: 'ccm',
      }),
    );
    await clients.iam.send(
      new PutRolePolicyCommand({ RoleName: 'control-plane', PolicyName: 'ccm', PolicyDocument: POLICY }),
    );
    const inline = await clients.iam.send(
      new GetRolePolicyCommand({ RoleName: 'control-plane', PolicyName: 'ccm' }),
    );
    expect(inline.PolicyDocument).not.toBe(POLICY);
    expect(decodeURIComponent(inline.PolicyDocument!)).toBe(POLICY);
    const role = await clients.iam.send(new GetRoleCommand({ RoleName: 'control-plane' }));
    expect(decodeURIComponent(role.Role!.AssumeRolePolicyDocument!)).toBe(TRUST);
    expect(role.Role).toMatchObject({
      RoleName: 'control-plane',
      Arn: 'arn:aws:iam::123456789012:role/control-plane',
      Description: 'ccm',
    });
    expect(role.Role!.RoleId).toMatch(/^AROA/);

    const created = await clients.iam.send(
      new CreatePolicyCommand({ PolicyName: 'ccm-managed', PolicyDocument: POLICY }),
    );
    expect(created.Policy).toMatchObject({
      Arn: 'arn:aws:iam::123456789012:policy/ccm-managed',
      DefaultVersionId: 'v1',
      AttachmentCount: 0,
    });
    const version = await clients.iam.send(
      new GetPolicyVersionCommand({ PolicyArn: created.Policy!.Arn, VersionId: 'v1' }),
    );
    expect(decodeURIComponent(version.PolicyVersion!.Document!)).toBe(POLICY);
    expect(version.PolicyVersion!.IsDefaultVersion).toBe(true);
  });

  it('attaches, lists and detaches policies; lists and deletes inline policies', async () => {
    const { clients } = await emulatorFor({
      seed: {
        roles: [{ name: 'node' }],
        managedPolicies: [{ name: 'nodes', document: allowAll('ec2:DescribeInstances') }],
      },
    });
    const arn = 'arn:aws:iam::123456789012:policy/nodes';
    await clients.iam.send(new AttachRolePolicyCommand({ RoleName: 'node', PolicyArn: arn }));
    expect(
      (await clients.iam.send(new ListAttachedRolePoliciesCommand({ RoleName: 'node' }))).AttachedPolicies,
    ).toEqual([{ PolicyName: 'nodes', PolicyArn: arn }]);
    expect((await clients.iam.send(new GetPolicyCommand({ PolicyArn: arn }))).Policy?.AttachmentCount).toBe(
      1,
    );
    await clients.iam.send(new DetachRolePolicyCommand({ RoleName: 'node', PolicyArn: arn }));
    expect(
      (await clients.iam.send(new ListAttachedRolePoliciesCommand({ RoleName: 'node' }))).AttachedPolicies,
    ).toEqual([]);
    const detachAgain = await failureOf(
      clients.iam.send(new DetachRolePolicyCommand({ RoleName: 'node', PolicyArn: arn })),
    );
    expect(detachAgain.name).toBe('NoSuchEntityException');

    await clients.iam.send(
      new PutRolePolicyCommand({
        RoleName: 'node',
        PolicyName: 'a',
        PolicyDocument: JSON.stringify(allowAll('ec2:*')),
      }),
    );
    await clients.iam.send(
      new PutRolePolicyCommand({
        RoleName: 'node',
        PolicyName: 'b',
        PolicyDocument: JSON.stringify(allowAll('ec2:*')),
      }),
    );
    expect((await clients.iam.send(new ListRolePoliciesCommand({ RoleName: 'node' }))).PolicyNames).toEqual([
      'a',
      'b',
    ]);
    await clients.iam.send(new DeleteRolePolicyCommand({ RoleName: 'node', PolicyName: 'a' }));
    expect((await clients.iam.send(new ListRolePoliciesCommand({ RoleName: 'node' }))).PolicyNames).toEqual([
      'b',
    ]);
  });

  it('builds instance profiles and reports them with their role', async () => {
    const { clients } = await emulatorFor({ seed: { roles: [{ name: 'node' }, { name: 'other' }] } });
    await clients.iam.send(new CreateInstanceProfileCommand({ InstanceProfileName: 'node-profile' }));
    await clients.iam.send(
      new AddRoleToInstanceProfileCommand({ InstanceProfileName: 'node-profile', RoleName: 'node' }),
    );
    const profile = await clients.iam.send(
      new GetInstanceProfileCommand({ InstanceProfileName: 'node-profile' }),
    );
    expect(profile.InstanceProfile).toMatchObject({
      InstanceProfileName: 'node-profile',
      Arn: 'arn:aws:iam::123456789012:instance-profile/node-profile',
      Roles: [{ RoleName: 'node' }],
    });
    const full = await failureOf(
      clients.iam.send(
        new AddRoleToInstanceProfileCommand({ InstanceProfileName: 'node-profile', RoleName: 'other' }),
      ),
    );
    expect(full.name).toBe('LimitExceededException');
    expect((await clients.iam.send(new ListInstanceProfilesCommand({}))).InstanceProfiles).toHaveLength(1);
  });

  it('answers NoSuchEntity with 404 and EntityAlreadyExists with 409', async () => {
    const { clients } = await emulatorFor({ seed: { roles: [{ name: 'node' }] } });
    const missing = await failureOf(clients.iam.send(new GetRoleCommand({ RoleName: 'ghost' })));
    expect(missing).toMatchObject({
      name: 'NoSuchEntityException',
      message: 'The role with name ghost cannot be found.',
    });
    expect(missing.$metadata.httpStatusCode).toBe(404);
    expect(
      (await failureOf(clients.iam.send(new GetInstanceProfileCommand({ InstanceProfileName: 'ghost' }))))
        .name,
    ).toBe('NoSuchEntityException');
    expect(
      (await failureOf(clients.iam.send(new GetRolePolicyCommand({ RoleName: 'node', PolicyName: 'ghost' }))))
        .$metadata.httpStatusCode,
    ).toBe(404);
    const exists = await failureOf(
      clients.iam.send(new CreateRoleCommand({ RoleName: 'NODE', AssumeRolePolicyDocument: TRUST })),
    );
    expect(exists.name).toBe('EntityAlreadyExistsException');
    expect(exists.$metadata.httpStatusCode).toBe(409);
    const malformed = await failureOf(
      clients.iam.send(new PutRolePolicyCommand({ RoleName: 'node', PolicyName: 'x', PolicyDocument: '{' })),
    );
    expect(malformed.name).toBe('MalformedPolicyDocumentException');
  });

  it('pages ListRoles with Marker, MaxItems and IsTruncated', async () => {
    const { clients } = await emulatorFor({
      seed: { roles: Array.from({ length: 7 }, (_, i) => ({ name: `role-${i}` })) },
    });
    const first = await clients.iam.send(new ListRolesCommand({ MaxItems: 3 }));
    expect(first.IsTruncated).toBe(true);
    expect(first.Roles?.map((r) => r.RoleName)).toEqual(['role-0', 'role-1', 'role-2']);
    const names: string[] = [];
    for await (const page of paginateListRoles({ client: clients.iam, pageSize: 3 }, {}))
      names.push(...(page.Roles ?? []).map((r) => r.RoleName!));
    expect(names).toEqual(Array.from({ length: 7 }, (_, i) => `role-${i}`));
  });

  it('simulates a role’s permissions for preflight checks', async () => {
    const { clients } = await emulatorFor({
      seed: {
        roles: [
          { name: 'node', inlinePolicies: { p: allowAll(['ec2:DescribeInstances', 'ec2:DescribeRegions']) } },
        ],
      },
    });
    const out = await clients.iam.send(
      new SimulatePrincipalPolicyCommand({
        PolicySourceArn: 'arn:aws:iam::123456789012:role/node',
        ActionNames: ['ec2:DescribeInstances', 'ec2:CreateTags', 'elasticloadbalancing:CreateLoadBalancer'],
      }),
    );
    expect(out.EvaluationResults?.map((r) => [r.EvalActionName, r.EvalDecision])).toEqual([
      ['ec2:DescribeInstances', 'allowed'],
      ['ec2:CreateTags', 'implicitDeny'],
      ['elasticloadbalancing:CreateLoadBalancer', 'implicitDeny'],
    ]);
  });
});
