/**
 * One breakage at a time, against the sandbox emulators: each fails exactly the check that judges it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { preflight, type PreflightOptions } from '../../../packages/uproot/src/toolkit/preflight.js';
import { startPreflightSandbox, type PreflightSandbox, type SandboxTweaks } from './sandbox-cluster.js';
import { check, commandsOf, idsWith } from './report-helpers.js';
import type { KubeObject } from '../../../packages/sandbox/src/apiserver/index.js';

let sandbox: PreflightSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function run(tweaks: SandboxTweaks, options: PreflightOptions = {}) {
  sandbox = await startPreflightSandbox(tweaks);
  return preflight({ kubeconfig: sandbox.kubeconfig, env: sandbox.env, aws: { maxAttempts: 1 }, ...options });
}

const nodeNamed = (objects: KubeObject[], fragment: string) =>
  objects.find((o) => o.kind === 'Node' && (o.metadata?.name ?? '').includes(fragment)) as {
    metadata: { name: string };
  };

describe('preflight finds one problem at a time', () => {
  it('a short hostname fails node-names with the CCM symptom and the real DNS name', async () => {
    const { report } = await run({
      kube: (objects) => void (nodeNamed(objects, '10-0-64-11').metadata.name = 'ip-10-0-64-11'),
    });
    expect(idsWith(report, 'fail')).toEqual(['node-names']);
    const result = check(report, 'node-names');
    expect(result.message).toContain('failed to get provider ID for node ip-10-0-64-11: instance not found');
    expect(result.resources).toEqual([{ kind: 'Node', name: 'ip-10-0-64-11' }]);
    expect(JSON.stringify(result)).toContain('ip-10-0-64-11 → ip-10-0-64-11.us-west-2.compute.internal');
  });

  it('a custom DHCP domain fails node-name-settings with the predicted names, read in one call each', async () => {
    const { report } = await run({
      aws: (seed) => {
        seed.dhcpOptions = [{ id: 'dopt-0000000000000c0de', domainName: 'corp.example.com' }];
        seed.vpcs![0]!.dhcpOptionsId = 'dopt-0000000000000c0de';
      },
    });
    expect(idsWith(report, 'fail')).toEqual(['node-name-settings']);
    const result = check(report, 'node-name-settings');
    expect(result.message).toContain(
      'ip-10-0-0-10.us-west-2.compute.internal would become ip-10-0-0-10.corp.example.com',
    );
    expect(result.resources).toHaveLength(6);
    expect(JSON.stringify(result)).toContain('node-name: ip-10-0-0-10.us-west-2.compute.internal');
    expect(report.stats.aws.byCall['ec2:DescribeVpcs']).toBe(1);
    expect(report.stats.aws.byCall['ec2:DescribeDhcpOptions']).toBe(1);
  });

  it('an instance without the cluster tag fails cluster-tags with the create-tags command', async () => {
    const { report } = await run({ aws: (seed) => void (seed.instances[4]!.tags = { Name: 'untagged' }) });
    expect(idsWith(report, 'fail')).toEqual(['cluster-tags']);
    expect(commandsOf(check(report, 'cluster-tags'))).toEqual([
      `aws ec2 create-tags --region us-west-2 --resources ${sandbox!.cluster.instances[4]!.instanceId} --tags Key=kubernetes.io/cluster/prod,Value=owned`,
    ]);
  });

  it('two tagged security groups on an instance fail cluster-tags with the CCM message and a delete-tags fix', async () => {
    const extra = 'sg-0000000000000bbbb';
    const { report } = await run({
      aws: (seed) => {
        seed.securityGroups!.push({
          id: extra,
          name: 'lb',
          vpcId: 'vpc-00000001',
          tags: { 'kubernetes.io/cluster/prod': 'owned' },
        });
        seed.instances[1]!.securityGroupIds = [...seed.instances[1]!.securityGroupIds!, extra];
      },
    });
    expect(idsWith(report, 'fail')).toEqual(['cluster-tags']);
    const result = check(report, 'cluster-tags');
    expect(result.message).toContain(
      `Multiple tagged security groups found for instance ${sandbox!.cluster.instances[1]!.instanceId}`,
    );
    expect(commandsOf(result)).toEqual([
      `aws ec2 delete-tags --region us-west-2 --resources ${extra} --tags Key=kubernetes.io/cluster/prod`,
    ]);
  });

  it('an IAM gap (ELB actions missing, EC2 writes denied by a wildcard) fails iam-control-plane with the statement to add', async () => {
    const { report } = await run({
      aws: (seed) => {
        const role = seed.roles!.find((r) => r.name === 'prod-control-plane')!;
        const doc = Object.values(role.inlinePolicies!)[0] as { Statement: { Action: string[] }[] };
        doc.Statement[0]!.Action = doc.Statement[0]!.Action.filter(
          (a) => !a.startsWith('elasticloadbalancing:'),
        );
        role.inlinePolicies!['guardrail'] = {
          Version: '2012-10-17',
          Statement: [{ Sid: 'NoVolumes', Effect: 'Deny', Action: 'ec2:*Volume', Resource: '*' }],
        };
      },
    });
    expect(idsWith(report, 'fail')).toEqual(['iam-control-plane']);
    const result = check(report, 'iam-control-plane');
    if (result.status !== 'fail') throw new Error('expected a failure');
    const policy = result.fixes.find((f) => f.type === 'iam-policy');
    expect(policy?.type === 'iam-policy' && policy.document.Statement[0]!.Action).toContain(
      'elasticloadbalancing:CreateLoadBalancer',
    );
    expect(policy?.type === 'iam-policy' && policy.document.Statement[0]!.Action).not.toContain(
      'ec2:DescribeInstances',
    );
    const deny = result.fixes.find((f) => f.type === 'manual');
    expect(deny?.type === 'manual' && deny.steps.join('\n')).toContain(
      'inline policy guardrail statement NoVolumes (ec2:*Volume): denies ec2:CreateVolume',
    );
  });

  it('no migration-lease RBAC fails migration-lease-rbac; its fix, applied to the cluster, makes it pass', async () => {
    const { report } = await run({ skipLeaseRbac: true });
    expect(idsWith(report, 'fail')).toEqual(['migration-lease-rbac']);
    const result = check(report, 'migration-lease-rbac');
    expect(result.message).toContain('kube-controller-manager cannot get/update');
    if (result.status !== 'fail') throw new Error('expected a failure');
    const fix = result.fixes[0]!;
    if (fix.type !== 'rbac-role') throw new Error('expected an RBAC fix');
    expect(fix.commands[0]).toMatch(
      /^kubectl patch -n kube-system role 'system::leader-locking-kube-controller-manager' --type=merge -p '/,
    );
    // The existing rules are kept in the patch (a merge patch replaces the list).
    expect(fix.rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ resourceNames: ['kube-controller-manager'], resources: ['leases'] }),
      ]),
    );
    const api = sandbox!.api;
    const role = api.store.get('rbac.authorization.k8s.io/v1/roles', 'kube-system', fix.name)!;
    api.store.update(
      'rbac.authorization.k8s.io/v1/roles',
      { ...role, rules: fix.rules },
      { namespace: 'kube-system' },
    );
    const again = await preflight({
      kubeconfig: sandbox!.kubeconfig,
      env: sandbox!.env,
      aws: { maxAttempts: 1 },
    });
    expect(check(again.report, 'migration-lease-rbac').status).toBe('pass');
  });

  it('an in-tree EBS volume without the CSI driver fails ebs-storage', async () => {
    const { report } = await run({
      kube: (objects) =>
        objects.push({
          apiVersion: 'v1',
          kind: 'PersistentVolume',
          metadata: { name: 'data-0' },
          spec: {
            capacity: { storage: '10Gi' },
            accessModes: ['ReadWriteOnce'],
            awsElasticBlockStore: { volumeID: 'vol-0123456789abcdef0', fsType: 'ext4' },
          },
        }),
    });
    expect(idsWith(report, 'fail')).toEqual(['ebs-storage']);
    expect(check(report, 'ebs-storage').resources).toEqual([{ kind: 'PersistentVolume', name: 'data-0' }]);
  });

  it("the chart's default nodeSelector fails control-plane-scheduling on RKE2", async () => {
    const values = [
      'image:',
      '  tag: v1.26.14',
      'hostNetworking: true',
      'args:',
      '  - --v=2',
      '  - --cloud-provider=aws',
      '  - --enable-leader-migration=true',
      '  - --configure-cloud-routes=false',
      '  - --use-service-account-credentials=true',
      'clusterRoleRules:',
      '  - apiGroups: [""]',
      '    resources: [serviceaccounts]',
      '    verbs: [create, get]',
      '  - apiGroups: [coordination.k8s.io]',
      '    resources: [leases]',
      '    verbs: [create, get, list, watch, update]',
    ].join('\n');
    const { report } = await run({
      kube: (objects) => {
        for (const o of objects) {
          if (o.kind === 'Pod' && o.metadata?.labels?.component === 'kube-controller-manager') {
            const c = (o.spec as { containers: { args: string[] }[] }).containers[0]!;
            c.args.push('--enable-leader-migration');
          }
        }
        objects.push({
          apiVersion: 'helm.cattle.io/v1',
          kind: 'HelmChart',
          metadata: { name: 'aws-cloud-controller-manager', namespace: 'kube-system' },
          spec: {
            chart: 'aws-cloud-controller-manager',
            repo: 'https://kubernetes.github.io/cloud-provider-aws',
            targetNamespace: 'kube-system',
            valuesContent: values,
          },
        });
      },
    });
    expect(idsWith(report, 'fail')).toEqual(['control-plane-scheduling']);
    const result = check(report, 'control-plane-scheduling');
    expect(result.message).toContain('node-role.kubernetes.io/control-plane=""');
    expect(JSON.stringify(result)).toContain('node-role.kubernetes.io/control-plane: \\"true\\"');
  });
});
