/** RKE plan helpers: the HelmChart without RKE2's bootstrap flag, node names, and the plan's findings. */
import type { PlanFinding } from '../../model/plan-types.js';
import {
  carryCloudConfig,
  rkeAwsCloudProviderConfig,
  type CloudConfigCarry,
} from '../../cloud-config/index.js';
import { kcmCloudFlags, type KcmCloudFlags, type PlannedCcm } from '../shared/controller-handover.js';
import { isRecord, type JsonRecord } from '../../model/json-value.js';
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
      ...(def.form !== 'cluster-yml'
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

/**
 * RKE's kube-controller-manager flags that decide route and nodeipam: RKE's service defaults
 * (rancher/kontainer-driver-metadata rke/k8s_service_options.go: allocate-node-cidrs true,
 * configure-cloud-routes false), --cluster-cidr from services.kube-controller.cluster_cidr (rancher/rke
 * cluster/plan.go BuildKubeControllerProcess; default 10.42.0.0/16), then extra_args.
 */
export function rkeKcmCloudFlags(rke: JsonRecord): KcmCloudFlags {
  const services = isRecord(rke.services) ? rke.services : {};
  const kcm = isRecord(services['kube-controller']) ? services['kube-controller'] : {};
  const cidr =
    typeof kcm.cluster_cidr === 'string' && kcm.cluster_cidr !== '' ? kcm.cluster_cidr : '10.42.0.0/16';
  const extra = isRecord(kcm.extra_args) ? kcm.extra_args : {};
  return kcmCloudFlags(
    Object.entries(extra).map(([k, v]) => `--${k}=${String(v)}`),
    ['--allocate-node-cidrs=true', '--configure-cloud-routes=false', `--cluster-cidr=${cidr}`],
    'services.kube-controller.extra_args',
  );
}

/**
 * cloud_provider.awsCloudProvider, which RKE renders to /etc/kubernetes/cloud-config (cloudprovider/aws/aws.go
 * GenerateCloudConfigFile) for the in-tree managers. The switch must remove it, or RKE keeps the in-tree
 * provider (effective-config.ts), so its settings go into the CCM's ConfigMap instead.
 */
export function rkeCloudConfig(rke: JsonRecord, ccms: readonly PlannedCcm[]): CloudConfigCarry | undefined {
  if (!isRecord(rke.cloud_provider) || !isRecord(rke.cloud_provider.awsCloudProvider)) return undefined;
  const carry = carryCloudConfig(
    rkeAwsCloudProviderConfig(rke.cloud_provider.awsCloudProvider),
    'cloud_provider.awsCloudProvider',
    ccms.map((c) => c.release),
  );
  const removed: PlanFinding = {
    severity: 'info',
    code: 'aws-cloud-provider-removed',
    message:
      'switch-to-external removes cloud_provider.awsCloudProvider: RKE picks its in-tree aws provider whenever that block is set, whatever cloud_provider.name says (rancher/rke cloudprovider/cloudprovider.go InitCloudProvider), so keeping it would leave the cluster in-tree, and from 1.27 RKE refuses it ("Cloud provider aws is invalid").',
    field: 'cloud_provider.awsCloudProvider',
  };
  return { ...carry, findings: [...carry.findings, removed] };
}

/** RKE v1.4.15 (rancher/rke k8s/node.go ExternalAWSCloudProviderName) and v1.5.0 brought external-aws. */
export const RKE_EXTERNAL_AWS_SINCE = { rke: ['v1.4.15', 'v1.5.0'], rancher: ['v2.7.11', 'v2.8.0'] } as const;

export function rkeExternalAwsFinding(form: RkeDefinition['form']): PlanFinding {
  return {
    severity: 'warning',
    code: 'rke-external-aws-version',
    message: `cloud_provider external-aws exists only from RKE ${RKE_EXTERNAL_AWS_SINCE.rke.join(' / ')} (Rancher ${RKE_EXTERNAL_AWS_SINCE.rancher.join(' / ')}); an older ${form === 'cluster-yml' ? 'rke binary' : 'Rancher'} does not know the name and cannot switch the cluster.`,
    hint:
      form !== 'cluster-yml'
        ? 'check the Rancher version (Help → About, or the server-version setting) before the switch; uproot migrate reads it and refuses an older Rancher'
        : 'run `rke --version` before the switch; uproot migrate asks the --rke-binary and refuses an older one',
  };
}

/** RKE1's end of life, and with an upgrade journey how far RKE goes. */
export function rkeEndOfLifeFinding(upgrade: boolean): PlanFinding {
  return {
    severity: 'info',
    code: 'rke-end-of-life',
    message: `RKE1 reached end of life on 31 July 2025 (Rancher's RKE1 end-of-life notice): it gets no more fixes, and its last line (RKE v1.7) runs Kubernetes up to 1.31.${upgrade ? ' Each kubernetes_version of the journey must be one the RKE binary lists (rke config --list-version --all).' : ''}`,
    hint: 'to go past 1.31, move the cluster to RKE2 (Rancher’s RKE1-to-RKE2 migration) and plan the rest of the journey there',
  };
}

/** After every step, every component must run external with no leader migration on the KCM. */
export function finalStateFindings(finalDocument: unknown): PlanFinding[] {
  return rkeExternalProblems(finalDocument).map((problem) => ({
    severity: 'warning',
    code: 'not-external-after-plan',
    message: `after the plan, ${problem}`,
  }));
}
