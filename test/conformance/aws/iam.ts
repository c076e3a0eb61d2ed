import { expect, it } from 'vitest';
import { v2Failure, type V2Account } from './twin-accounts.js';

/** IAM through v2's query serializer: the twin's instance roles, their policies, and the policy simulator. */
export function iamConformance(account: () => V2Account): void {
  const roles = (a: V2Account) => {
    const name = a.twin.scenario.clusterName;
    return { controlPlane: `${name}-control-plane`, worker: `${name}-worker` };
  };

  it('lists and reads the instance roles, their profiles and attached policies', async () => {
    const a = account();
    const { controlPlane, worker } = roles(a);
    const listed = await a.iam.listRoles({ MaxItems: 1 }).promise();
    expect(listed.Roles).toHaveLength(1);
    expect(listed.IsTruncated).toBe(true);
    const rest = await a.iam.listRoles({ Marker: listed.Marker! }).promise();
    expect([...listed.Roles, ...rest.Roles].map((r) => r.RoleName).sort()).toEqual(
      [controlPlane, worker].sort(),
    );
    const role = await a.iam.getRole({ RoleName: controlPlane }).promise();
    expect(role.Role.Arn).toBe(`arn:aws:iam::${a.twin.aws.accountId}:role/${controlPlane}`);
    const trust = JSON.parse(decodeURIComponent(role.Role.AssumeRolePolicyDocument!)) as {
      Statement: { Principal: { Service: string } }[];
    };
    expect(trust.Statement[0]?.Principal.Service).toBe('ec2.amazonaws.com');
    const profile = await a.iam.getInstanceProfile({ InstanceProfileName: worker }).promise();
    expect(profile.InstanceProfile.Roles.map((r) => r.RoleName)).toEqual([worker]);
    const attached = await a.iam.listAttachedRolePolicies({ RoleName: controlPlane }).promise();
    const policy = attached.AttachedPolicies?.[0];
    expect(policy?.PolicyArn).toMatch(/^arn:aws:iam::\d{12}:policy\//);
    const meta = await a.iam.getPolicy({ PolicyArn: policy!.PolicyArn! }).promise();
    const version = await a.iam
      .getPolicyVersion({ PolicyArn: policy!.PolicyArn!, VersionId: meta.Policy!.DefaultVersionId! })
      .promise();
    const document = JSON.parse(decodeURIComponent(version.PolicyVersion!.Document!)) as {
      Statement: { Action: string[] }[];
    };
    expect(document.Statement.flatMap((s) => s.Action)).toContain('ec2:DescribeInstances');
    expect(await v2Failure(a.iam.getRole({ RoleName: 'no-such-role' }))).toMatchObject({
      code: 'NoSuchEntity',
      statusCode: 404,
    });
  });

  it('simulates the roles’ policies (SimulatePrincipalPolicy)', async () => {
    const a = account();
    const { controlPlane, worker } = roles(a);
    const arn = (r: string) => `arn:aws:iam::${a.twin.aws.accountId}:role/${r}`;
    const cp = await a.iam
      .simulatePrincipalPolicy({
        PolicySourceArn: arn(controlPlane),
        ActionNames: [
          'ec2:DescribeInstances',
          'elasticloadbalancing:CreateLoadBalancer',
          'ec2:TerminateInstances',
        ],
      })
      .promise();
    expect(cp.EvaluationResults?.map((r) => [r.EvalActionName, r.EvalDecision])).toEqual([
      ['ec2:DescribeInstances', 'allowed'],
      ['elasticloadbalancing:CreateLoadBalancer', 'allowed'],
      ['ec2:TerminateInstances', 'implicitDeny'],
    ]);
    const w = await a.iam
      .simulatePrincipalPolicy({
        PolicySourceArn: arn(worker),
        ActionNames: ['elasticloadbalancing:CreateLoadBalancer'],
      })
      .promise();
    expect(w.EvaluationResults?.[0]?.EvalDecision).toBe('implicitDeny');
    expect(
      await v2Failure(
        a.iam.simulatePrincipalPolicy({ PolicySourceArn: 'not-an-arn', ActionNames: ['s3:GetObject'] }),
      ),
    ).toMatchObject({ code: 'InvalidInput' });
  });

  it('answers STS GetCallerIdentity for the admin key', async () => {
    const a = account();
    const me = await a.sts.getCallerIdentity({}).promise();
    expect(me.Account).toBe(a.twin.aws.accountId);
  });
}
