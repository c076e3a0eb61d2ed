/** RKE plan helpers: the HelmChart without RKE2's bootstrap flag, node names, and the plan's findings. */
import type { PlanFinding } from '../../plan/plan-types.js';
import { isRecord, type JsonRecord } from '../shared/json-value.js';
import { rkeExternalProblems } from './effective-config.js';
import type { RkeDefinition } from './rke-cluster.js';

export function withoutBootstrap(chart: JsonRecord): JsonRecord {
  const spec = { ...(chart.spec as JsonRecord) };
  delete spec.bootstrap;
  return { ...chart, spec };
}

export function namingFindings(
  def: RkeDefinition,
  customNames: number,
  value: boolean,
  fromFlag: boolean,
): PlanFinding[] {
  if (customNames > 0) {
    return [
      {
        severity: 'warning',
        code: 'custom-node-names',
        message: `${customNames} node(s) set hostname_override, so useInstanceMetadataHostname is false (seed 004: the two must not be combined). The custom names must be the nodes' EC2 private DNS names, or the CCM will not find the instances.`,
        field: 'nodes[].hostname_override',
      },
    ];
  }
  return [
    {
      severity: 'info',
      code: 'node-naming',
      message: value
        ? `useInstanceMetadataHostname: true${fromFlag ? ' (from the flag)' : ''}: kubelet and kube-proxy take the node name from the EC2 metadata hostname (seed 004).`
        : `useInstanceMetadataHostname: false${fromFlag ? ' (from the flag)' : ''}: node names stay as the nodes set them; they must be the EC2 private DNS names.`,
      ...(def.form === 'rancher'
        ? {
            hint: 'custom clusters whose nodes were registered with --node-name need --no-use-instance-metadata-hostname',
          }
        : {}),
    },
  ];
}

/** Nodes that set their own name (seed 004: such names and useInstanceMetadataHostname must not be combined). */
export function customNameIndexes(rke: JsonRecord): number[] {
  const nodes = Array.isArray(rke.nodes) ? rke.nodes : [];
  return nodes
    .map((node, i) =>
      isRecord(node) && typeof node.hostname_override === 'string' && node.hostname_override !== '' ? i : -1,
    )
    .filter((i) => i >= 0);
}

export function awsCloudProviderFindings(rke: JsonRecord): PlanFinding[] {
  if (!isRecord(rke.cloud_provider) || !isRecord(rke.cloud_provider.awsCloudProvider)) return [];
  return [
    {
      severity: 'info',
      code: 'aws-cloud-provider-config-kept',
      message:
        'cloud_provider.awsCloudProvider is kept as written; RKE does not render it for external-aws, and the CCM takes its settings from the chart.',
      field: 'cloud_provider.awsCloudProvider',
    },
  ];
}

/** After every step, every component must run external with no leader migration on the KCM. */
export function finalStateFindings(finalDocument: unknown): PlanFinding[] {
  return rkeExternalProblems(finalDocument).map((problem) => ({
    severity: 'warning',
    code: 'not-external-after-plan',
    message: `after the plan, ${problem}`,
  }));
}
