/**
 * node-names: the CCM finds a node's instance by name, once, when it initializes the node and whenever
 * cloud-node-lifecycle checks it still exists. IP-based names must equal the instance's PrivateDnsName (EC2
 * filter `private-dns-name`); resource-based names (`i-…`, `i-….<region>.compute.internal`) are read up to
 * the first dot. A short hostname (`ip-10-0-1-2`) or a custom DHCP domain never matches: the CCM logs
 * "failed to get provider ID for node … instance not found" and may delete the Node (cloud-provider-aws#384).
 */
import { fail, node, pass, skip, warn, type CheckResult, type Fix } from './check-result.js';
import {
  awsSkipReason,
  nodesSkipReason,
  plural,
  type CheckContext,
  type NodeInstance,
} from './check-context.js';

const ID = 'node-names';

type Problem = { ni: NodeInstance; severity: 'fail' | 'warn'; text: string };

export function checkNodeNames(ctx: CheckContext): CheckResult {
  const reason = nodesSkipReason(ctx) ?? awsSkipReason(ctx);
  if (reason || !ctx.nodeInstances) return skip(ID, reason ?? 'no instances');
  const problems: Problem[] = [];
  for (const ni of ctx.nodeInstances) {
    const problem = judge(ni, regionOf(ctx));
    if (problem) problems.push(problem);
  }
  const total = ctx.nodeInstances.length;
  if (problems.length === 0) {
    return pass(
      ID,
      `all ${plural(total, 'node')} resolve to exactly one EC2 instance the way the CCM looks them up`,
    );
  }
  const failing = problems.filter((p) => p.severity === 'fail');
  const resources = problems.map((p) => node(p.ni.node.name));
  const details = problems.map((p) => `${p.ni.node.name}: ${p.text}`);
  const fixes = fixesFor(ctx, problems);
  if (failing.length === 0) {
    return warn(
      ID,
      `${problems.length} of ${plural(total, 'node')} use names some CCM versions cannot parse`,
      fixes,
      { resources, details },
    );
  }
  const short = failing.filter((p) => p.ni.lookup.by === 'private-dns-name' && p.ni.lookup.shape === 'short');
  const example = failing[0]!.ni.node.name;
  return fail(
    ID,
    `${failing.length} of ${plural(total, 'node')} ${failing.length === 1 ? 'does' : 'do'} not resolve to exactly one instance; the CCM will log "failed to get provider ID for node ${example}: instance not found"${
      short.length > 0 ? ` (${plural(short.length, 'short hostname')}, no domain)` : ''
    }`,
    fixes,
    { resources, details },
  );
}

function judge(ni: NodeInstance, region: string | undefined): Problem | undefined {
  const { lookup, byName } = ni;
  const actual = ni.byProviderId?.privateDnsName;
  const hint = actual && actual !== ni.node.name ? `; its instance's PrivateDnsName is ${actual}` : '';
  if (lookup.by === 'instance-id') {
    if (byName.length === 0) return { ni, severity: 'fail', text: `no live instance ${lookup.instanceId}` };
    if (lookup.customDomain) {
      return {
        ni,
        severity: 'warn',
        text: `resource name with a custom domain; older CCMs send it whole: "InvalidInstanceID.Malformed: Invalid id: \\"${ni.node.name}\\"" (cloud-provider-aws#799)`,
      };
    }
    return undefined;
  }
  if (lookup.shape === 'short') {
    return {
      ni,
      severity: 'fail',
      text: `short hostname without a domain: EC2 reports PrivateDnsName as ${actual ?? `${ni.node.name}.${region === 'us-east-1' ? 'ec2.internal' : `${region ?? '<region>'}.compute.internal`}`}`,
    };
  }
  if (byName.length === 1) return undefined;
  if (byName.length > 1) {
    return {
      ni,
      severity: 'fail',
      text: `${byName.length} live instances have this PrivateDnsName (${byName.map((i) => i.instanceId).join(', ')})`,
    };
  }
  return {
    ni,
    severity: 'fail',
    text:
      lookup.shape === 'custom-domain'
        ? `custom DHCP domain: no instance has PrivateDnsName ${ni.node.name}${hint}`
        : `no live instance has PrivateDnsName ${ni.node.name} (terminated, another region or account?)${hint}`,
  };
}

function regionOf(ctx: CheckContext): string | undefined {
  return ctx.snapshot.aws.state === 'ok' ? ctx.snapshot.aws.value.region : undefined;
}

function fixesFor(ctx: CheckContext, problems: readonly Problem[]): Fix[] {
  const renames = problems.filter(
    (p) => p.ni.byProviderId && p.ni.byProviderId.privateDnsName !== p.ni.node.name,
  );
  const fixes: Fix[] = [];
  switch (ctx.profile.distro) {
    case 'rke2':
      fixes.push({
        type: 'config',
        description:
          "let RKE2 name nodes from instance metadata (local-hostname): keep cloud-provider-name: aws in machineGlobalConfig (Rancher's recipe overrides the components to external per role), or set node-name on each node",
        target: 'Rancher provisioning Cluster (spec.rkeConfig)',
        snippet: 'machineGlobalConfig:\n  cloud-provider-name: aws\n',
        commands: [],
      });
      break;
    case 'rke':
      fixes.push({
        type: 'config',
        description:
          'name nodes after their instance metadata hostname: useInstanceMetadataHostname (not together with hostname_override), or set hostname_override to the PrivateDnsName',
        target: 'cluster.yml (rancher_kubernetes_engine_config)',
        snippet: 'cloud_provider:\n  name: external-aws\n  useInstanceMetadataHostname: true\n',
        commands: [],
      });
      break;
    default:
      fixes.push({
        type: 'manual',
        description:
          "run kubelet and kube-proxy with --hostname-override set to the instance's PrivateDnsName",
        steps: [
          'on each node: --hostname-override=$(curl -s -H "X-aws-ec2-metadata-token: $TOKEN" http://169.254.169.254/latest/meta-data/local-hostname)',
        ],
      });
  }
  fixes.push({
    type: 'manual',
    description:
      'a Node cannot be renamed: drain it, delete the Node object, and restart its kubelet with the new name (or replace the machine)',
    steps:
      renames.length > 0
        ? renames.slice(0, 20).map((p) => `${p.ni.node.name} → ${p.ni.byProviderId!.privateDnsName}`)
        : problems
            .slice(0, 20)
            .map(
              (p) =>
                `kubectl drain ${p.ni.node.name} --ignore-daemonsets && kubectl delete node ${p.ni.node.name}`,
            ),
  });
  return fixes;
}
