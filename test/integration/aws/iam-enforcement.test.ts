import {
  DescribeInstancesCommand,
  DescribeSubnetsCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { DescribeLoadBalancersCommand } from '@aws-sdk/client-elastic-load-balancing-v2';
import { GetRoleCommand, PutRolePolicyCommand } from '@aws-sdk/client-iam';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import { emptyAccountSeed, type AwsSeed } from '../../../packages/sandbox/src/aws/index.js';
import { allowAll, clientsFor, emulatorFor, failureOf } from './helpers.js';

const NODE = 'i-0e0000000000000a1';

const seed = (): AwsSeed => ({
  ...emptyAccountSeed({ enforceIam: true }),
  managedPolicies: [{ name: 'subnets-only', document: allowAll('ec2:DescribeSubnets') }],
  roles: [
    // A node role with a gap: it can list subnets but not instances.
    { name: 'node', attachedPolicies: ['subnets-only'] },
    {
      name: 'ccm',
      inlinePolicies: {
        ccm: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: ['ec2:Describe*', 'ec2:TerminateInstances', 'elasticloadbalancing:Describe*'],
              Resource: '*',
            },
            {
              Effect: 'Deny',
              Action: 'ec2:TerminateInstances',
              Resource: `arn:aws:ec2:us-east-1:123456789012:instance/${NODE}`,
            },
          ],
        },
      },
    },
  ],
  instanceProfiles: [{ name: 'node', roles: ['node'] }],
  instances: [{ id: NODE, iamInstanceProfile: 'node' }],
});

describe('IAM enforcement (enforceIam: true)', () => {
  it('denies a node role without ec2:DescribeInstances the way EC2 does, until PutRolePolicy mends it', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const node = clientsFor(emulator, emulator.credentialsFor({ type: 'instance', instanceId: NODE }));
    await node.ec2.send(new DescribeSubnetsCommand({}));
    const denied = await failureOf(node.ec2.send(new DescribeInstancesCommand({})));
    expect(denied.name).toBe('UnauthorizedOperation');
    expect(denied.message).toMatch(/^You are not authorized to perform this operation\./);
    expect(denied.message).toContain(
      `arn:aws:sts::123456789012:assumed-role/node/${NODE} is not authorized to perform: ec2:DescribeInstances`,
    );
    expect(denied.$metadata.httpStatusCode).toBe(403);

    const admin = clientsFor(emulator);
    await admin.iam.send(
      new PutRolePolicyCommand({
        RoleName: 'node',
        PolicyName: 'mend',
        PolicyDocument: JSON.stringify(allowAll('ec2:DescribeInstances')),
      }),
    );
    const out = await node.ec2.send(new DescribeInstancesCommand({}));
    expect(out.Reservations?.[0]?.Instances?.[0]?.InstanceId).toBe(NODE);
    expect(
      emulator.log.count({
        caller: `arn:aws:sts::123456789012:assumed-role/node/${NODE}`,
        errorCode: 'UnauthorizedOperation',
      }),
    ).toBe(1);
  });

  it('answers AccessDenied naming the action and resource outside EC2', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const ccm = clientsFor(emulator, emulator.credentialsFor({ type: 'role', roleName: 'ccm' }));
    await ccm.elbv2.send(new DescribeLoadBalancersCommand({}));
    const denied = await failureOf(ccm.iam.send(new GetRoleCommand({ RoleName: 'node' })));
    expect(denied.name).toBe('AccessDenied');
    expect(denied.message).toBe(
      'User: arn:aws:sts::123456789012:assumed-role/ccm/sandbox-session is not authorized to perform: iam:GetRole on resource: arn:aws:iam::123456789012:role/node because no identity-based policy allows the iam:GetRole action',
    );
    expect(denied.$metadata.httpStatusCode).toBe(403);
  });

  it('honours explicit denies on a specific resource', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const other = emulator.state.runInstance({}).id;
    const ccm = clientsFor(emulator, emulator.credentialsFor({ type: 'role', roleName: 'ccm' }));
    const denied = await failureOf(ccm.ec2.send(new TerminateInstancesCommand({ InstanceIds: [NODE] })));
    expect(denied.name).toBe('UnauthorizedOperation');
    expect(denied.message).toContain('explicit deny');
    await ccm.ec2.send(new TerminateInstancesCommand({ InstanceIds: [other] }));
    expect(emulator.state.ec2.instance(other)?.state).toBe('terminated');
  });

  it('rejects unknown keys with AuthFailure on EC2 and InvalidClientTokenId elsewhere, but never denies GetCallerIdentity', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const stranger = clientsFor(emulator, { accessKeyId: 'AKIAUNKNOWNKEY000001', secretAccessKey: 'x' });
    const ec2 = await failureOf(stranger.ec2.send(new DescribeInstancesCommand({})));
    expect(ec2.name).toBe('AuthFailure');
    expect(ec2.$metadata.httpStatusCode).toBe(401);
    expect((await failureOf(stranger.sts.send(new GetCallerIdentityCommand({})))).name).toBe(
      'InvalidClientTokenId',
    );
    const node = clientsFor(emulator, emulator.credentialsFor({ type: 'instance', instanceId: NODE }));
    expect((await node.sts.send(new GetCallerIdentityCommand({}))).Arn).toContain('assumed-role/node/');
  });

  it('lets any key through as the admin when enforcement is off', async () => {
    const { emulator } = await emulatorFor({ seed: { ...seed(), enforceIam: false } });
    const stranger = clientsFor(emulator, { accessKeyId: 'AKIAUNKNOWNKEY000001', secretAccessKey: 'x' });
    expect((await stranger.sts.send(new GetCallerIdentityCommand({}))).Arn).toBe(
      'arn:aws:iam::123456789012:user/sandbox-admin',
    );
    const node = clientsFor(emulator, emulator.credentialsFor({ type: 'instance', instanceId: NODE }));
    await node.ec2.send(new DescribeInstancesCommand({}));
    emulator.state.enforceIam = true;
    expect((await failureOf(node.ec2.send(new DescribeInstancesCommand({})))).name).toBe(
      'UnauthorizedOperation',
    );
  });
});
