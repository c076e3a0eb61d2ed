/**
 * node-name-settings, second part: predict each node's name after the switch to external from the
 * distribution's settings and its VPC's DHCP options, and find the names EC2 cannot resolve. In-tree, every
 * node is named after its PrivateDnsName, so node-names sees nothing wrong; the rename happens only when the
 * kubelets go external (the custom-dhcp-domain scenario), which is too late to find out.
 */
import { isControlPlaneNode } from './facts/cluster-profile.js';
import type { Rke2Definition, RkeDefinition } from '../model/cluster-definition.js';
import {
  dhcpDomainOf,
  judgeName,
  predictName,
  type DhcpDomain,
  type NamingSource,
} from './facts/post-switch-name.js';
import { rke2NodeArgs } from './facts/rke2-node-args.js';
import { awsSkipReason, plural, type CheckContext } from './check-context.js';
import { tryParse } from './facts/cluster-profile.js';
import { rke2NodeNameUsesImdsV2 } from '../distros/rke2/index.js';
import type { Fix } from './check-result.js';
import type { Ec2InstanceFacts, NodeFacts } from '../model/snapshot.js';

export interface NodePrediction {
  readonly node: NodeFacts;
  readonly instance: Ec2InstanceFacts;
  readonly source: NamingSource;
  readonly domain: DhcpDomain;
  readonly vpcId: string;
  readonly predicted: string;
  readonly how: string;
  /** `renamed-ok`: a new name EC2 resolves; `kept`: the name does not change (node-names judges it). */
  readonly verdict: 'renamed-ok' | 'kept' | 'caution' | 'unresolvable';
  readonly caution?: string;
}

export type PredictionOutcome =
  /** No node's naming settings are known (k3s, unknown distributions, settings not visible). */
  | { readonly state: 'not-applicable' }
  | { readonly state: 'unavailable'; readonly reason: string }
  | {
      readonly state: 'done';
      readonly predictions: readonly NodePrediction[];
      /** Nodes with settings but no instance or VPC facts (node-names reports missing instances). */
      readonly unpredicted: readonly string[];
    };

export function predictNamesAfterSwitch(ctx: CheckContext): PredictionOutcome {
  const sources = namingSources(ctx);
  if (sources.size === 0) return { state: 'not-applicable' };
  const awsReason = awsSkipReason(ctx);
  const aws = ctx.snapshot.aws;
  if (awsReason || aws.state !== 'ok' || !ctx.nodeInstances) {
    return { state: 'unavailable', reason: awsReason ?? 'the nodes’ instances were not read' };
  }
  const dhcp = aws.value.vpcDhcp;
  if (!dhcp) return { state: 'unavailable', reason: 'the VPCs’ DHCP options were not read' };
  if (dhcp.state === 'unavailable') return { state: 'unavailable', reason: dhcp.reason };
  const domains = new Map(dhcp.value.map((v) => [v.vpcId, dhcpDomainOf(v)]));
  const predictions: NodePrediction[] = [];
  const unpredicted: string[] = [];
  for (const ni of ctx.nodeInstances) {
    const instance = ni.instance;
    const source = withImdsFallback(sources.get(ni.node.name), ni.node, instance);
    if (!source) continue;
    const domain = instance?.vpcId ? domains.get(instance.vpcId) : undefined;
    const predicted = instance && domain ? predictName(source, instance, domain) : undefined;
    if (!instance || !domain || !predicted) {
      unpredicted.push(ni.node.name);
      continue;
    }
    const verdict = judgeName(predicted.name, instance);
    predictions.push({
      node: ni.node,
      instance,
      source,
      domain,
      vpcId: instance.vpcId!,
      predicted: predicted.name,
      how: predicted.how,
      ...(predicted.name === ni.node.name
        ? { verdict: 'kept' as const }
        : !verdict.resolves
          ? { verdict: 'unresolvable' as const }
          : 'caution' in verdict
            ? { verdict: 'caution' as const, caution: verdict.caution }
            : { verdict: 'renamed-ok' as const }),
    });
  }
  return { state: 'done', predictions, unpredicted };
}

/**
 * RKE2 before the IMDSv2 fix reads `local-hostname` with a token-less GET: on an instance that requires
 * tokens that is a 401, and RKE2 names the node after `hostname -f` instead (src/core/distros/rke2).
 */
function withImdsFallback(
  source: NamingSource | undefined,
  node: NodeFacts,
  instance: Ec2InstanceFacts | undefined,
): NamingSource | undefined {
  if (source?.kind !== 'instance-metadata' || source.path !== 'local-hostname') return source;
  if (instance?.metadataOptions?.httpTokens !== 'required') return source;
  const version = tryParse(node.kubeletVersion);
  if (!version || rke2NodeNameUsesImdsV2(version)) return source;
  return hostnameSource(
    node,
    `${source.setting}, but RKE2 ${node.kubeletVersion} asks instance metadata without a token and the instance requires one (HttpTokens: required), so it falls back to hostname -f`,
  );
}

/** True for RKE2 nodes whose name comes from instance metadata's `local-hostname` (cloud-provider-name: aws). */
export function namedFromLocalHostname(ctx: CheckContext): Set<string> {
  const out = new Set<string>();
  for (const [name, source] of namingSources(ctx))
    if (source.kind === 'instance-metadata' && source.path === 'local-hostname') out.add(name);
  return out;
}

/** Per node (by current name), where its external kubelet's name will come from. */
function namingSources(ctx: CheckContext): Map<string, NamingSource> {
  const out = new Map<string, NamingSource>();
  const { profile } = ctx;
  const def = profile.definition;
  for (const node of profile.nodes) {
    const source =
      profile.distro === 'rke2'
        ? rke2Source(node, def?.distro === 'rke2' ? def : undefined)
        : profile.distro === 'rke'
          ? def?.distro === 'rke'
            ? rkeSource(node, def)
            : undefined
          : profile.distro === 'kubeadm'
            ? hostnameSource(node, 'kubeadm (no --hostname-override is visible to preflight)')
            : undefined;
    if (source) out.set(node.name, source);
  }
  return out;
}

function hostnameSource(node: NodeFacts, setting: string): NamingSource {
  // The kubelet labels its Node with its hostname (--hostname-override or the OS's), whatever the in-tree
  // provider named the Node; when the two differ, the label is what an external kubelet registers as.
  const label = node.labels['kubernetes.io/hostname'];
  return label && label !== node.name
    ? { kind: 'hostname', setting, observed: label }
    : { kind: 'hostname', setting };
}

function rke2Role(node: NodeFacts): 'control-plane' | 'etcd' | 'worker' {
  if (isControlPlaneNode(node)) return 'control-plane';
  const l = node.labels;
  const etcd = 'node-role.kubernetes.io/etcd' in l || l['rke.cattle.io/etcd-role'] === 'true';
  const worker = 'node-role.kubernetes.io/worker' in l || l['rke.cattle.io/worker-role'] === 'true';
  return etcd && !worker ? 'etcd' : 'worker';
}

/** RKE2: `node-name` wins; else `cloud-provider-name: aws` names from IMDS local-hostname; else the hostname. */
function rke2Source(node: NodeFacts, def: Rke2Definition | undefined): NamingSource | undefined {
  const args = rke2NodeArgs(node);
  const argName = args?.get('node-name');
  if (argName) return { kind: 'explicit', name: argName, setting: 'RKE2 node-name (rke2.io/node-args)' };
  const role = def?.roles[rke2Role(node)];
  if (def && role?.nodeName) {
    return { kind: 'explicit', name: role.nodeName, setting: `RKE2 node-name (${def.source})` };
  }
  if (!def && !args) return undefined;
  const provider = def
    ? (role?.cloudProviderName ?? def.cloudProviderName)
    : args?.get('cloud-provider-name');
  if (provider === 'aws') {
    return { kind: 'instance-metadata', path: 'local-hostname', setting: 'RKE2 cloud-provider-name: aws' };
  }
  return hostnameSource(node, `RKE2 cloud-provider-name: ${provider ?? '(unset)'} without node-name`);
}

/**
 * RKE: `hostname_override` wins; with external-aws, useInstanceMetadataHostname names from IMDS `hostname`,
 * else the node is named after its address. In-tree, uproot's plan switches to external-aws with
 * useInstanceMetadataHostname on unless nodes set hostname_override (seed 004: never both).
 */
function rkeSource(node: NodeFacts, def: RkeDefinition): NamingSource | undefined {
  const entry = def.nodes.find(
    (n) =>
      n.hostnameOverride === node.name || n.address === node.name || node.internalIPs.includes(n.address),
  );
  if (!entry) return undefined;
  if (entry.hostnameOverride) {
    return { kind: 'explicit', name: entry.hostnameOverride, setting: 'RKE hostname_override' };
  }
  const external = def.cloudProviderName?.startsWith('external') ?? false;
  const metadata = external
    ? def.useInstanceMetadataHostname === true
    : !def.nodes.some((n) => n.hostnameOverride);
  if (metadata) {
    return {
      kind: 'instance-metadata',
      path: 'hostname',
      setting: external
        ? 'RKE useInstanceMetadataHostname'
        : "RKE external-aws with useInstanceMetadataHostname (uproot's plan)",
    };
  }
  return { kind: 'explicit', name: entry.address, setting: 'RKE node address (no hostname_override)' };
}

/** One line per judged node: `ip-10-0-0-10.ec2.internal → ip-10-0-0-10.corp.example.com (…); EC2 PrivateDnsName …`. */
export function predictionDetail(p: NodePrediction): string {
  if (p.verdict === 'kept') return `${p.node.name}: keeps its name (${p.how})`;
  const tail =
    p.verdict === 'unresolvable'
      ? `; EC2 PrivateDnsName ${p.instance.privateDnsName}`
      : p.verdict === 'caution'
        ? `; ${p.caution}`
        : '';
  return `${p.node.name} → ${p.predicted} (${p.how})${tail}`;
}

export function unresolvableMessage(bad: readonly NodePrediction[], total: number): string {
  const ex = bad[0]!;
  return (
    `after the switch to external, ${bad.length} of ${plural(total, 'node')} would register under names EC2 cannot resolve ` +
    `(predicted from the distribution's settings and the VPC's DHCP options): ${ex.node.name} would become ${ex.predicted} ` +
    `(${ex.how}), but its instance's PrivateDnsName is ${ex.instance.privateDnsName}; the CCM would log ` +
    `"failed to get provider ID for node ${ex.predicted}: instance not found" and leave the new Nodes uninitialized`
  );
}

/** EC2's own domain for an instance: what its PrivateDnsName ends in. */
function ec2DomainOf(instance: Ec2InstanceFacts): string {
  return instance.privateDnsName.split('.').slice(1).join('.');
}

/** Fixes naming the setting to change per distribution, then the VPC-wide alternative (the DHCP options). */
export function renameFixes(ctx: CheckContext, bad: readonly NodePrediction[]): Fix[] {
  const sample = bad.slice(0, 20);
  const fixes: Fix[] = [];
  const def = ctx.profile.definition;
  switch (ctx.profile.distro) {
    case 'rke2':
      fixes.push({
        type: 'config',
        description:
          "set node-name on each machine to its instance's EC2 PrivateDnsName: RKE2 then passes that name to the kubelet instead of instance metadata's local-hostname or the hostname (Rancher cannot set providerIDs, seed 004)",
        target:
          "each machine's RKE2 configuration (/etc/rancher/rke2/config.yaml; custom clusters: --node-name in the registration command)",
        snippet:
          sample
            .map(
              (p) => `# ${p.node.name} (${p.instance.instanceId})\nnode-name: ${p.instance.privateDnsName}`,
            )
            .join('\n') + '\n',
        commands: [],
      });
      break;
    case 'rke':
      fixes.push({
        type: 'config',
        description:
          "set each node's hostname_override to its instance's PrivateDnsName and turn useInstanceMetadataHostname off (seed 004: never both)",
        target: def?.source ?? 'cluster.yml',
        snippet:
          'cloud_provider:\n  name: external-aws\n  useInstanceMetadataHostname: false\nnodes:\n' +
          sample
            .map(
              (p) =>
                `  - address: ${p.node.internalIPs[0] ?? p.instance.privateIpAddress ?? ''}\n    hostname_override: ${p.instance.privateDnsName}`,
            )
            .join('\n') +
          '\n',
        commands: [],
      });
      break;
    default:
      fixes.push({
        type: 'manual',
        description:
          "run kubelet and kube-proxy with --hostname-override set to the instance's PrivateDnsName before switching them to external (cloud-provider-aws: needed with a custom DHCP domain)",
        steps: sample.map(
          (p) =>
            `${p.node.name}: --hostname-override=${p.instance.privateDnsName} (kubeadm: KUBELET_KUBEADM_ARGS in /var/lib/kubelet/kubeadm-flags.env; kube-proxy: hostnameOverride)`,
        ),
      });
  }
  const byVpc = new Map<string, NodePrediction>();
  for (const p of bad) if (p.source.kind !== 'explicit' && !byVpc.has(p.vpcId)) byVpc.set(p.vpcId, p);
  for (const [vpcId, p] of byVpc) {
    const ec2Domain = ec2DomainOf(p.instance);
    fixes.push({
      type: 'manual',
      description: `or give VPC ${vpcId} DHCP options whose domain-name is EC2's own (${ec2Domain}; today: ${p.domain.kind === 'domain' ? p.domain.domain : 'none'}), so hostnames and instance metadata match EC2 again; only if nothing else in the VPC relies on the current domain`,
      steps: [
        `aws ec2 create-dhcp-options --dhcp-configurations "Key=domain-name,Values=${ec2Domain}" "Key=domain-name-servers,Values=AmazonProvidedDNS"`,
        `aws ec2 associate-dhcp-options --vpc-id ${vpcId} --dhcp-options-id <the new dopt-… id>`,
        'reboot each machine so its hostname and instance metadata take the new domain, then run preflight again',
      ],
    });
  }
  return fixes;
}
