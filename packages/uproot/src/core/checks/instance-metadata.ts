/**
 * instance-metadata: whether what reads instance metadata during the migration can reach it.
 * - The aws-cloud-controller-manager on the pod network (the chart's default `hostNetworking: false`) is one
 *   hop further from IMDS than its node. With `HttpPutResponseHopLimit: 1` the token's answer never reaches
 *   it (EC2 User Guide, instance metadata options: a hop limit of 2 for containers); with `HttpTokens:
 *   required` its token-less retry gets 401 and it cannot read its region, instance id or role credentials
 *   (it exits "Cloud provider could not be initialized"); with `optional` it falls back to IMDSv1 after the
 *   token request times out. Warn either way; the fixes are host networking or a hop limit of 2.
 * - RKE2 before v1.29.11 / v1.30.7 / v1.31.3 / v1.32.0 names nodes from `local-hostname` with a token-less
 *   GET (rancher/rke2#7343, #7356): on tokens-required instances it falls back to `hostname -f` when it
 *   restarts. Warn when that applies (node-name-settings predicts the names that result).
 */
import { pass, skip, warn, type CheckResult, type Fix, type ResourceRef } from './check-result.js';
import {
  awsSkipReason,
  nodesSkipReason,
  plural,
  type CheckContext,
  type NodeInstance,
} from './check-context.js';
import { findCcmDeployments, type CcmDeployment } from '../ccm/installed-chart.js';
import { isControlPlaneNode, tryParse } from './facts/cluster-profile.js';
import { namedFromLocalHostname } from './node-name-prediction.js';
import type { Ec2InstanceFacts } from '../model/snapshot.js';
import { rke2ImdsV2FixFor, rke2NodeNameUsesImdsV2 } from '../distros/rke2/index.js';

const ID = 'instance-metadata';
const SAMPLE = 20;

export function checkInstanceMetadata(ctx: CheckContext): CheckResult {
  const reason = awsSkipReason(ctx) ?? nodesSkipReason(ctx);
  if (reason || !ctx.nodeInstances) return skip(ID, reason ?? 'the nodes’ instances were not read');
  const withOptions = ctx.nodeInstances.filter((ni) => ni.instance?.metadataOptions);
  if (withOptions.length === 0) return skip(ID, 'EC2 reported no metadata options for the nodes’ instances');
  const findings = [...podNetworkFindings(ctx, withOptions), ...rke2Findings(ctx, withOptions)];
  if (findings.length === 0) {
    return pass(ID, describePass(withOptions));
  }
  return warn(
    ID,
    findings.map((f) => f.message).join('; '),
    findings.flatMap((f) => f.fixes),
    {
      resources: findings.flatMap((f) => f.resources),
      details: findings.flatMap((f) => f.details),
    },
  );
}

interface Finding {
  readonly message: string;
  readonly fixes: readonly Fix[];
  readonly resources: readonly ResourceRef[];
  readonly details: readonly string[];
}

function describePass(nis: readonly NodeInstance[]): string {
  const required = nis.filter((ni) => ni.instance!.metadataOptions!.httpTokens === 'required').length;
  const hop1 = nis.filter((ni) => ni.instance!.metadataOptions!.httpPutResponseHopLimit < 2).length;
  return `instance metadata is reachable where it is read (${plural(nis.length, 'instance')}: ${required} require IMDSv2 tokens, ${hop1} with a hop limit of 1)`;
}

/** The CCM (installed or planned by the user) on the pod network, on control-plane instances with hop limit 1. */
function podNetworkFindings(ctx: CheckContext, nis: readonly NodeInstance[]): Finding[] {
  const podNetwork = findCcmDeployments(ctx.snapshot.kube, ctx.profile.definition).filter(
    (d) => !d.hostNetwork,
  );
  if (podNetwork.length === 0) return [];
  const oneHop = nis
    .filter((ni) => isControlPlaneNode(ni.node))
    .map((ni) => ni.instance!)
    .filter(
      (i) => i.metadataOptions!.httpPutResponseHopLimit < 2 && i.metadataOptions!.httpEndpoint !== 'disabled',
    );
  if (oneHop.length === 0) return [];
  const required = oneHop.filter((i) => i.metadataOptions!.httpTokens === 'required');
  const where = podNetwork.map((d) => d.source).join(', ');
  const effect =
    required.length > 0
      ? `with HttpTokens required on ${plural(required.length, 'instance')} it cannot read its region, instance id or role credentials there (its token request gets no answer, the token-less retry gets 401, and it exits "Cloud provider could not be initialized: could not init cloud provider "aws": EC2MetadataRequestError …")`
      : 'it gets no token there and falls back to IMDSv1 after its token request times out';
  return [
    {
      message:
        `the aws-cloud-controller-manager (${where}) runs on the pod network (hostNetworking false), one hop further from instance metadata than its node, ` +
        `and ${plural(oneHop.length, 'control-plane instance')} let the metadata token's answer travel only 1 hop (HttpPutResponseHopLimit 1): ${effect}`,
      fixes: [hostNetworkingFix(podNetwork), hopLimitFix(ctx, oneHop)],
      resources: oneHop.slice(0, SAMPLE).map(instanceRef),
      details: oneHop.map(
        (i) =>
          `${i.instanceId}: HttpTokens ${i.metadataOptions!.httpTokens}, HttpPutResponseHopLimit ${i.metadataOptions!.httpPutResponseHopLimit}`,
      ),
    },
  ];
}

function hostNetworkingFix(deployments: readonly CcmDeployment[]): Fix {
  return {
    type: 'config',
    description:
      "run the CCM on the host network, as uproot's plan installs it: the node's own processes are one hop from instance metadata",
    target: deployments.map((d) => d.source).join(', '),
    snippet: 'hostNetworking: true\n',
    commands: [],
  };
}

function hopLimitFix(ctx: CheckContext, instances: readonly Ec2InstanceFacts[]): Fix {
  const region = ctx.snapshot.aws.state === 'ok' ? ctx.snapshot.aws.value.region : undefined;
  return {
    type: 'commands',
    description:
      'or let the metadata token reach pods: a PUT response hop limit of 2 on the instances (and in their launch template, so replacements get it too)',
    commands: instances
      .slice(0, SAMPLE)
      .map(
        (i) =>
          `aws ec2 modify-instance-metadata-options${region ? ` --region ${region}` : ''} --instance-id ${i.instanceId} --http-put-response-hop-limit 2 --http-endpoint enabled`,
      ),
  };
}

/** RKE2 releases that read local-hostname without a token, on instances that require one. */
function rke2Findings(ctx: CheckContext, nis: readonly NodeInstance[]): Finding[] {
  if (ctx.profile.distro !== 'rke2') return [];
  const fromMetadata = namedFromLocalHostname(ctx);
  const affected = nis.filter((ni) => {
    const version = tryParse(ni.node.kubeletVersion);
    return (
      fromMetadata.has(ni.node.name) &&
      version !== undefined &&
      !rke2NodeNameUsesImdsV2(version) &&
      ni.instance!.metadataOptions!.httpTokens === 'required'
    );
  });
  if (affected.length === 0) return [];
  const example = affected[0]!;
  const version = tryParse(example.node.kubeletVersion)!;
  const fixed = rke2ImdsV2FixFor(version);
  const region = ctx.snapshot.aws.state === 'ok' ? ctx.snapshot.aws.value.region : undefined;
  return [
    {
      message:
        `RKE2 ${example.node.kubeletVersion} names nodes from instance metadata's local-hostname (cloud-provider-name: aws) with a token-less IMDSv1 request, ` +
        `and ${plural(affected.length, 'instance')} require IMDSv2 tokens (HttpTokens required): when RKE2 restarts during the migration it gets 401 and falls back to hostname -f ` +
        `(rancher/rke2#7343; IMDSv2 from ${fixed ?? 'v1.29.11+rke2r1'}, v1.30.7+rke2r1, v1.31.3+rke2r1, v1.32.0+rke2r1; node-name-settings shows the names that result)`,
      fixes: [
        {
          type: 'commands',
          description:
            'allow IMDSv1 on these instances for the migration (set HttpTokens back to required once RKE2 runs a release with the fix)',
          commands: affected
            .slice(0, SAMPLE)
            .map(
              (ni) =>
                `aws ec2 modify-instance-metadata-options${region ? ` --region ${region}` : ''} --instance-id ${ni.instance!.instanceId} --http-tokens optional --http-endpoint enabled`,
            ),
        },
        {
          type: 'config',
          description:
            "or set node-name on each machine to its instance's PrivateDnsName, so RKE2 does not ask instance metadata at all",
          target:
            "each machine's RKE2 configuration (/etc/rancher/rke2/config.yaml; custom clusters: --node-name in the registration command)",
          snippet:
            affected
              .slice(0, SAMPLE)
              .map(
                (ni) =>
                  `# ${ni.node.name} (${ni.instance!.instanceId})\nnode-name: ${ni.instance!.privateDnsName}`,
              )
              .join('\n') + '\n',
          commands: [],
        },
      ],
      resources: affected.slice(0, SAMPLE).map((ni) => instanceRef(ni.instance!)),
      details: affected.map(
        (ni) =>
          `${ni.node.name} (${ni.instance!.instanceId}): RKE2 ${ni.node.kubeletVersion}, HttpTokens required`,
      ),
    },
  ];
}

function instanceRef(i: Ec2InstanceFacts): ResourceRef {
  return { kind: 'Instance', name: i.instanceId };
}
