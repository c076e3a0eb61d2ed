/**
 * Every check's fix is an action: a command to run, a field or value to set, or a concrete change, and never
 * the problem said again. Each check is driven into failure (or a warning) by at least one broken snapshot
 * below; every fix of every failing result is judged.
 */
import { describe, expect, it } from 'vitest';
import { installCcmDaemonSet, okValue, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';
import { withIamEvaluation } from './evaluate-snapshot.js';
import { runChecks } from './run-checks.js';
import { CHECK_IDS, type CheckResult, type Fix } from './check-result.js';
import { migrationLeaseReviewRequests } from './migration-lease-rbac.js';
import type { CheckOptions } from './check-context.js';
import type { PreflightSnapshot } from '../model/snapshot.js';

const kcm = (m: MutableSnapshot) =>
  okValue(m.kube.componentPods).filter((p) => p.component === 'kube-controller-manager');

function installCcm(
  m: MutableSnapshot,
  tag: string,
  args: string[],
  nodeSelector: Record<string, string> = {},
) {
  installCcmDaemonSet(m, tag, args, { nodeSelector });
  m.kube.ccmAccess = {
    state: 'ok',
    value: [
      {
        identity: {
          label: 'cloud-controller-manager',
          user: 'system:serviceaccount:kube-system:cloud-controller-manager',
          groups: [],
        },
        attributes: { namespace: 'kube-system', verb: 'get', group: '', resource: 'serviceaccounts' },
        allowed: false,
      },
    ],
  };
}

const inTreePv = (m: MutableSnapshot) =>
  okValue(m.kube.persistentVolumes).push({
    name: 'data-0',
    plugin: 'in-tree',
    volumeID: 'vol-0123456789abcdef0',
  });

const policy = (m: MutableSnapshot, role: string, actions: string[]) =>
  (okValue(okValue(okValue(m.aws).iam).roles[role]).policies = [
    {
      name: 'p',
      kind: 'inline',
      document: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: actions, Resource: '*' }] },
    },
  ]);

/** Broken clusters, each breaking one or more things; together they fail or warn every check. */
const BROKEN: readonly [string, (m: MutableSnapshot) => void, CheckOptions?][] = [
  [
    'too old for leader migration',
    (m) => (m.kube.server = { state: 'ok', value: { gitVersion: 'v1.20.15' } }),
  ],
  ['a target older than the cluster', () => undefined, { targetVersion: '1.25' }],
  ['a journey past 1.27 in one go', () => undefined, { targetVersion: '1.29' }],
  ['KCM without leader election', (m) => kcm(m)[0]!.args.push('--leader-elect=false')],
  ['no KCM lease', (m) => (m.kube.leases = { state: 'ok', value: [] })],
  [
    'lease RBAC denied',
    (m) =>
      (okValue(m.kube.leaseRbac).reviews = migrationLeaseReviewRequests().map((r) => ({
        identity: { ...r.identity, groups: [...r.identity.groups] },
        attributes: { ...r.attributes },
        allowed: false,
      }))),
  ],
  ['a node EC2 cannot resolve', (m) => (okValue(m.kube.nodes)[4]!.name = 'ip-10-0-0-11')],
  ['a foreign providerID', (m) => (okValue(m.kube.nodes)[4]!.providerID = 'rke2://ip-10-0-0-11')],
  ['no providerID', (m) => delete okValue(m.kube.nodes)[4]!.providerID],
  ['an untagged instance', (m) => (okValue(okValue(m.aws).instances)[2]!.tags = {})],
  [
    'no role-tagged subnets',
    (m) => okValue(okValue(m.aws).subnets).forEach((s) => delete s.tags['kubernetes.io/role/elb']),
  ],
  [
    'subnets tagged for another cluster',
    (m) =>
      okValue(okValue(m.aws).subnets).forEach((s) => {
        delete s.tags['kubernetes.io/cluster/prod'];
        s.tags['kubernetes.io/cluster/staging'] = 'owned';
      }),
  ],
  [
    'a Service whose load balancer is gone',
    (m) =>
      (okValue(m.kube.loadBalancerServices)[0]!.ingressHostnames = ['gone-1.us-west-2.elb.amazonaws.com']),
  ],
  ['control-plane role without ELB writes', (m) => policy(m, 'prod-control-plane', ['ec2:Describe*'])],
  [
    'node roles without ECR',
    (m) => {
      policy(m, 'prod-node', ['ec2:DescribeRegions']);
      okValue(m.kube.images).push({
        image: '123456789012.dkr.ecr.us-west-2.amazonaws.com/team/api:1.4',
        pods: 4,
        example: { namespace: 'apps', name: 'api-0' },
      });
    },
  ],
  [
    "the chart's default nodeSelector, old CCM, bad flags, no RBAC",
    (m) => installCcm(m, 'v1.26.11', ['--v=2'], { 'node-role.kubernetes.io/control-plane': '' }),
  ],
  [
    'a CCM next to in-tree managers without leader migration',
    (m) => installCcm(m, 'v1.26.14', ['--cloud-provider=aws']),
  ],
  ['a CCM of a minor without the ENI fix', (m) => installCcm(m, 'v1.25.16', ['--cloud-provider=aws'])],
  [
    'route moved to a release that cannot list routes',
    (m) => kcm(m).forEach((p) => p.args.push('--allocate-node-cidrs=true', '--configure-cloud-routes=true')),
    { targetVersion: '1.35' },
  ],
  [
    'an nlb annotation on a classic ELB',
    (m) =>
      (okValue(m.kube.loadBalancerServices)[0]!.annotations[
        'service.beta.kubernetes.io/aws-load-balancer-type'
      ] = 'nlb'),
  ],
  ['in-tree volumes without the CSI driver', (m) => inTreePv(m)],
  [
    'in-tree volumes with the CSI driver',
    (m) => {
      inTreePv(m);
      okValue(m.kube.csiDrivers).push('ebs.csi.aws.com');
    },
  ],
  [
    'CSI migration turned off',
    (m) => {
      inTreePv(m);
      okValue(m.kube.csiDrivers).push('ebs.csi.aws.com');
      kcm(m)[0]!.args.push('--feature-gates=CSIMigrationAWS=false');
    },
  ],
  [
    'RKE2 nodes named by hostname',
    (m) => okValue(m.kube.nodes).forEach((n) => (n.annotations['rke2.io/node-args'] = '["server"]')),
  ],
  [
    'external without a CCM',
    (m) =>
      kcm(m).forEach(
        (p) => (p.args = p.args.map((a) => a.replace('--cloud-provider=aws', '--cloud-provider=external'))),
      ),
  ],
  [
    'a pod-network CCM on instances whose hop limit keeps IMDS out of reach',
    (m) => {
      installCcmDaemonSet(m, 'v1.26.14', ['--cloud-provider=aws'], {
        nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' },
      });
      for (const ds of okValue(m.kube.daemonSets)) (ds as { hostNetwork: boolean }).hostNetwork = false;
      for (const i of okValue(okValue(m.aws).instances))
        i.metadataOptions = { httpTokens: 'required', httpPutResponseHopLimit: 1, httpEndpoint: 'enabled' };
    },
  ],
  [
    'components on releases that refuse their cloud flags',
    (m) => {
      kcm(m)[0]!.image = 'registry.k8s.io/kube-controller-manager:v1.27.16';
      okValue(m.kube.componentPods).push({
        namespace: 'kube-system',
        name: 'kube-apiserver-cp-1',
        component: 'kube-apiserver',
        nodeName: 'cp-1',
        image: 'registry.k8s.io/kube-apiserver:v1.33.1',
        args: ['kube-apiserver', '--cloud-provider=external'],
      });
    },
  ],
  [
    'an external apiserver flag that 1.33 removes',
    (m) => {
      for (const pod of kcm(m))
        pod.args = pod.args.map((a) => a.replace('--cloud-provider=aws', '--cloud-provider=external'));
      for (const n of okValue(m.kube.nodes)) {
        if (!('node-role.kubernetes.io/control-plane' in n.labels)) continue;
        n.annotations['rke2.io/node-args'] = JSON.stringify([
          'server',
          '--cloud-provider-name',
          'external',
          '--kube-apiserver-arg',
          'cloud-provider=external',
        ]);
      }
    },
    { targetVersion: '1.33' },
  ],
];

/** Something a person can do: a command, a flag or field to set, a tag, a file to edit, a version to move to. */
const CONCRETE =
  /`|\$ |\b(kubectl|aws|uproot|helm|rke|kubeadm|systemctl)\b|--[a-z][a-z-]+|\b[\w./-]+=[\w"'{[]|\b(spec|metadata|status|image|args|nodeSelector|tolerations|clusterRoleRules)[.:]|\bv1\.\d+\.\d+|\b(tag|untag|add|remove|set|replace|delete|create|install|upgrade|attach|grant|edit|move|pin|drop|rename|recreate|point)\b/i;

/** Why a fix is not an action, or undefined when it is one. */
function notAnAction(fix: Fix, result: CheckResult): string | undefined {
  const said = [result.message, ...result.details].map((s) => s.trim());
  if (said.includes(fix.description.trim())) return 'its description repeats the problem';
  switch (fix.type) {
    case 'commands':
      if (fix.commands.length === 0 || fix.commands.some((c) => !c.trim())) return 'no command';
      return undefined;
    case 'ec2-tags':
      if (fix.create.length + fix.remove.length === 0 || fix.commands.length === 0) return 'no tag change';
      return undefined;
    case 'rbac-role':
      return fix.rules.length === 0 ? 'no rule' : undefined;
    case 'iam-policy':
      return fix.document.Statement.every((s) => s.Action.length === 0) ? 'no action to allow' : undefined;
    case 'config':
      return fix.snippet.trim() ? undefined : 'no setting';
    case 'manual': {
      const repeated = fix.steps.find((s) => said.includes(s.trim()));
      if (repeated) return `step "${repeated}" repeats the problem`;
      return CONCRETE.test([fix.description, ...fix.steps].join('\n'))
        ? undefined
        : 'names no command, field or concrete change';
    }
  }
}

describe('every fix is an action', () => {
  it('over broken clusters that fail or warn every check', async () => {
    const seen = new Map<string, string[]>();
    const problems: string[] = [];
    for (const [name, edit, options] of BROKEN) {
      const snapshot: PreflightSnapshot = await withIamEvaluation(snapshotWith(edit));
      for (const result of runChecks(snapshot, options)) {
        if (result.status !== 'fail' && result.status !== 'warn') continue;
        seen.set(result.id, [...(seen.get(result.id) ?? []), name]);
        for (const fix of result.fixes) {
          const why = notAnAction(fix, result);
          if (why)
            problems.push(`${name} → ${result.id} (${result.message}): fix "${fix.description}": ${why}`);
        }
      }
    }
    expect(
      CHECK_IDS.filter((id) => !seen.has(id)),
      'checks no broken cluster failed',
    ).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('the judge itself refuses a restatement and a vague step', () => {
    const result = {
      id: 'lb-subnets',
      title: '',
      status: 'fail',
      message: 'no subnet tagged x in a',
      resources: [],
      details: [],
      fixes: [],
    } as unknown as CheckResult;
    expect(
      notAnAction(
        { type: 'manual', description: 'no subnet tagged x in a', steps: ['no subnet tagged x in a'] },
        result,
      ),
    ).toBe('its description repeats the problem');
    expect(
      notAnAction(
        { type: 'manual', description: 'look into it', steps: ['think about the problem'] },
        result,
      ),
    ).toBe('names no command, field or concrete change');
    expect(notAnAction({ type: 'commands', description: 'run', commands: [] }, result)).toBe('no command');
  });
});
