/**
 * node-name-settings: the names nodes get once the in-tree provider stops naming them (only the in-tree
 * kubelet asked EC2 for its name). Two parts:
 * - the distribution's settings: RKE `external-aws` needs useInstanceMetadataHostname (the IMDS hostname
 *   becomes --hostname-override) unless every node sets hostname_override, and the two must not be combined
 *   (seed 004); RKE2 `cloud-provider-name: aws` makes RKE2 set node-name from IMDS (Rancher's recipe keeps it
 *   and overrides the components to external per role), without it (or node-name) nodes are named by hostname;
 * - the names those settings will produce, predicted with the VPC's DHCP options (node-name-prediction.ts):
 *   with a custom DHCP domain, IMDS and the hostname say `ip-….corp.example.com`, which EC2 cannot resolve.
 * A settings failure stands alone; otherwise unresolvable predicted names fail the check, and when they
 * cannot be predicted (DescribeDhcpOptions denied, no AWS) the check skips with that reason.
 */
import { fail, node, pass, skip, warn, type CheckResult } from './check-result.js';
import { plural, type CheckContext } from './check-context.js';
import type { Rke2Definition, RkeDefinition } from '../model/cluster-definition.js';
import { describeDomain } from './facts/post-switch-name.js';
import { rke2NodeArgs as nodeArgs } from './facts/rke2-node-args.js';
import {
  predictionDetail,
  predictNamesAfterSwitch,
  renameFixes,
  unresolvableMessage,
  type PredictionOutcome,
} from './node-name-prediction.js';

const ID = 'node-name-settings';

export function checkNodeNameSettings(ctx: CheckContext): CheckResult {
  const settings = judgeSettings(ctx);
  if (settings.status === 'fail') return settings;
  return withPrediction(ctx, settings, predictNamesAfterSwitch(ctx));
}

function withPrediction(ctx: CheckContext, settings: CheckResult, outcome: PredictionOutcome): CheckResult {
  const settingsLine = settings.status === 'skip' ? settings.reason : settings.message;
  const fixes = settings.status === 'warn' ? settings.fixes : [];
  switch (outcome.state) {
    case 'not-applicable':
      return settings;
    case 'unavailable':
      if (settings.status === 'warn') {
        return warn(ID, settings.message, fixes, {
          resources: settings.resources,
          details: [...settings.details, `names after the switch not predicted: ${outcome.reason}`],
        });
      }
      return skip(ID, `cannot predict the node names after the switch to external: ${outcome.reason}`, {
        details: [settingsLine, ...settings.details],
      });
    case 'done':
      break;
  }
  const { predictions, unpredicted } = outcome;
  const bad = predictions.filter((p) => p.verdict === 'unresolvable');
  const cautions = predictions.filter((p) => p.verdict === 'caution');
  const details = [
    ...[...bad, ...cautions].map(predictionDetail),
    ...settings.details,
    ...(unpredicted.length > 0
      ? [`not predicted (no instance or VPC facts; see node-names): ${unpredicted.join(', ')}`]
      : []),
  ];
  const total = predictions.length;
  if (bad.length > 0) {
    return fail(ID, unresolvableMessage(bad, total), [...renameFixes(ctx, bad), ...fixes], {
      resources: bad.map((p) => node(p.node.name)),
      details,
    });
  }
  if (cautions.length > 0 || settings.status === 'warn') {
    const message =
      settings.status === 'warn'
        ? settings.message
        : `after the switch to external, ${plural(cautions.length, 'node')} would use resource names with a custom domain that some CCM versions cannot parse`;
    return warn(ID, message, [...fixes, ...(cautions.length > 0 ? renameFixes(ctx, cautions) : [])], {
      resources: [...settings.resources, ...cautions.map((p) => node(p.node.name))],
      details,
    });
  }
  if (total === 0) return settings;
  const domains = [...new Set(predictions.map((p) => describeDomain(p.domain)))].join(', ');
  const renamed = predictions.filter((p) => p.verdict === 'renamed-ok').length;
  // The settings' message already says where names come from; say it here only when it did not (kubeadm).
  const sources =
    settings.status === 'pass'
      ? ''
      : `${[...new Set(predictions.map((p) => p.source.setting))].join('; ')}; `;
  return pass(
    ID,
    `${settings.status === 'pass' ? `${settings.message}; ` : ''}predicted names after the switch resolve to their instances for all ${plural(total, 'node')}` +
      ` (${sources}VPC DHCP domain ${domains}${renamed > 0 ? `; ${renamed} renamed` : ''})`,
    { details: [...predictions.slice(0, 10).map(predictionDetail), ...settings.details] },
  );
}

function judgeSettings(ctx: CheckContext): CheckResult {
  const def = ctx.profile.definition;
  if (def?.distro === 'rke') return judgeRke(def);
  if (def?.distro === 'rke2')
    return judgeRke2(def.cloudProviderName, def.roles['control-plane'].nodeName, def.source, def);
  if (ctx.profile.distro === 'rke2') {
    const args = ctx.profile.nodes.map(nodeArgs).filter((a) => a !== undefined);
    if (args.length > 0) {
      const names = new Set(args.map((a) => a.get('cloud-provider-name') ?? ''));
      const provider = names.size === 1 ? [...names][0] || undefined : undefined;
      if (names.size > 1) {
        return warn(
          ID,
          `RKE2 nodes disagree on cloud-provider-name (${[...names]
            .map((n) => n || '(unset)')
            .sort()
            .join(', ')})`,
          [rke2Fix()],
          {
            details: ctx.profile.nodes.map(
              (n) => `${n.name}: ${nodeArgs(n)?.get('cloud-provider-name') ?? '(unset)'}`,
            ),
          },
        );
      }
      // node-name set on every node names them whatever cloud-provider-name says.
      const named = args.length === ctx.profile.nodes.length && args.every((a) => a.has('node-name'));
      return judgeRke2(provider, named ? 'on every node' : undefined, "the nodes' rke2.io/node-args");
    }
    return skip(
      ID,
      'RKE2 settings are not visible: pass --rancher-context with --cluster, or --cluster-file',
    );
  }
  if (ctx.profile.distro === 'kubeadm') {
    return skip(ID, 'kubeadm has no node-name setting of its own; node-names checks the names');
  }
  if (ctx.profile.distro === 'rke')
    return skip(
      ID,
      'RKE settings are not visible through the API: pass --cluster-file cluster.yml or --rancher-context',
    );
  return skip(ID, `no distribution settings to check (${ctx.profile.distroEvidence})`);
}

function judgeRke(def: RkeDefinition): CheckResult {
  const overridden = def.nodes.filter((n) => n.hostnameOverride);
  const bare = def.nodes.filter((n) => !n.hostnameOverride);
  const details = [
    `cloud_provider.name: ${def.cloudProviderName ?? '(unset)'}`,
    `useInstanceMetadataHostname: ${def.useInstanceMetadataHostname ?? '(unset)'}`,
    `${overridden.length}/${def.nodes.length} nodes set hostname_override`,
  ];
  if (def.useInstanceMetadataHostname && overridden.length > 0) {
    return fail(
      ID,
      `useInstanceMetadataHostname is on while ${plural(overridden.length, 'node')} set hostname_override; seed 004: do not combine them`,
      [
        {
          type: 'config',
          description:
            "either drop hostname_override from the nodes, or turn useInstanceMetadataHostname off and make every hostname_override the instance's PrivateDnsName",
          target: def.source,
          snippet: 'cloud_provider:\n  name: external-aws\n  useInstanceMetadataHostname: false\n',
          commands: [],
        },
      ],
      { details, resources: overridden.map((n) => ({ kind: 'Node', name: n.hostnameOverride! })) },
    );
  }
  const external = def.cloudProviderName?.startsWith('external') ?? false;
  if (external && !def.useInstanceMetadataHostname && bare.length > 0) {
    return fail(
      ID,
      `cloud_provider ${def.cloudProviderName} without useInstanceMetadataHostname: ${plural(bare.length, 'node')} without hostname_override get renamed to their address and register as new Nodes`,
      [
        {
          type: 'config',
          description: 'name nodes from instance metadata',
          target: def.source,
          snippet: 'cloud_provider:\n  name: external-aws\n  useInstanceMetadataHostname: true\n',
          commands: [],
        },
      ],
      { details, resources: bare.map((n) => ({ kind: 'Node', name: n.address })) },
    );
  }
  if (!external && bare.length > 0) {
    return pass(
      ID,
      `in-tree aws names nodes today; when switching to external-aws, set useInstanceMetadataHostname: true (${plural(bare.length, 'node')} have no hostname_override)`,
      { details },
    );
  }
  return pass(ID, 'RKE node naming survives the switch to the external provider', { details });
}

function judgeRke2(
  provider: string | undefined,
  nodeName: string | undefined,
  source: string,
  def?: Rke2Definition,
): CheckResult {
  const details = [
    `cloud-provider-name: ${provider ?? '(unset)'} (${source})`,
    ...(nodeName ? [`node-name: ${nodeName}`] : []),
  ];
  if (def) {
    for (const role of ['control-plane', 'etcd', 'worker'] as const) {
      const r = def.roles[role];
      const kubelet = r.kubeletArgs.find((a) => a.replace(/^--/, '').startsWith('cloud-provider='));
      details.push(
        `${role}: kubelet ${kubelet ?? '(no cloud-provider override)'}${r.disableCloudController ? ', disable-cloud-controller' : ''}`,
      );
    }
  }
  if (provider === 'aws') {
    return pass(
      ID,
      'RKE2 cloud-provider-name: aws names nodes from instance metadata (keep it; override the components to external per role)',
      { details },
    );
  }
  if (nodeName) return pass(ID, `RKE2 node-name is set (${nodeName})`, { details });
  return warn(
    ID,
    `RKE2 cloud-provider-name is ${provider ?? 'unset'}: nodes are named by hostname, not from instance metadata`,
    [rke2Fix()],
    { details },
  );
}

function rke2Fix() {
  return {
    type: 'config' as const,
    description:
      'keep cloud-provider-name: aws globally (RKE2 then sets node-name from IMDS local-hostname) and override the components to external per role, as Rancher documents',
    target: 'Rancher provisioning Cluster (spec.rkeConfig)',
    snippet: 'machineGlobalConfig:\n  cloud-provider-name: aws\n',
    commands: [],
  };
}
