/** The RKE2 plan's findings: the decisions it made and why, and what to check before starting. */
import type { PlanFinding } from '../../model/plan-types.js';
import { CCM_CHART } from '../../ccm/index.js';
import { externalProblems, rke2NodeKinds } from './effective-config.js';
import type { Rke2Definition } from './rke2-cluster.js';
import { ccmValuesOf } from './rke2-steps.js';

export function rke2Findings(
  def: Rke2Definition,
  d: {
    keepAwsNodeNaming: boolean;
    supervisorNaming: boolean;
    flagGiven: boolean;
    targetMinor: number;
    installTag: string;
  },
): PlanFinding[] {
  const findings: PlanFinding[] = [
    {
      severity: 'info',
      code: 'leader-migration-default-config',
      message: `The CCM is pinned to ${d.installTag}, the release of the cluster's minor, so KCM and CCM use the same controller names and the default leader-migration configuration is safe. uproot does not distribute an explicit configuration file through Rancher (machineSelectorFiles needs a Secret in the management cluster and a Rancher release that supports it), so it keeps the default configuration safe by pinning instead.`,
    },
    {
      severity: 'info',
      code: 'node-naming',
      message: d.keepAwsNodeNaming
        ? 'cloud-provider-name stays aws so the RKE2 supervisor keeps naming nodes from instance metadata; every component is switched with per-role cloud-provider=external overrides (seed 004).'
        : 'cloud-provider-name becomes external: node names do not rely on the RKE2 supervisor (a node-name is set, or the cluster does not use cloud-provider-name aws).',
      field: 'spec.rkeConfig.machineGlobalConfig.cloud-provider-name',
      hint: d.flagGiven
        ? 'chosen by the --[no-]keep-aws-node-naming flag'
        : 'override with --keep-aws-node-naming or --no-keep-aws-node-naming',
    },
  ];
  if (!d.keepAwsNodeNaming && d.supervisorNaming) {
    findings.push({
      severity: 'warning',
      code: 'node-naming-changes',
      message:
        'Nodes are named by the RKE2 supervisor from instance metadata today; with cloud-provider-name external new nodes are named after their hostname, which the CCM may not find in EC2.',
      hint: 'use --keep-aws-node-naming unless every node sets node-name to its EC2 private DNS name',
    });
  }
  if (d.keepAwsNodeNaming && d.targetMinor >= 27) {
    findings.push({
      severity: 'warning',
      code: 'rke2-aws-name-on-1.27',
      message:
        'RKE2 releases before v1.29.11/v1.30.7/v1.31.3 pass in-tree flags for cloud-provider-name aws (rancher/rke2#4183: a 1.27.1 server failed to start); the per-role overrides set cloud-provider=external on every component, which wins over them.',
      hint: 'check the RKE2 1.27 release you upgrade to, or use --no-keep-aws-node-naming with explicit node names',
    });
  }
  if (ccmValuesOf(def.cluster)) {
    findings.push({
      severity: 'warning',
      code: 'ccm-chart-present',
      message:
        'additionalManifest already holds an aws-cloud-controller-manager HelmChart: if that CCM runs without leader migration while the KCMs run in-tree, both run the cloud controllers. uproot edits that HelmChart (pinned image, --enable-leader-migration=true) instead of adding another.',
      field: 'spec.rkeConfig.additionalManifest',
    });
  }
  findings.push({
    severity: 'info',
    code: 'ccm-rollout-after-switch',
    message: `The install Job of a bootstrap HelmChart cannot schedule on cordoned nodes, so the CCM DaemonSet rolls out during switch-to-external; its gate ("kubectl rollout status daemonset -n ${CCM_CHART.namespace} ${CCM_CHART.daemonSet}") is checked there.`,
  });
  return findings;
}

/** After every step, every kind of node must run all components external with no leader migration on KCM. */
export function finalStateFindings(finalCluster: unknown): PlanFinding[] {
  const findings: PlanFinding[] = [];
  for (const kind of rke2NodeKinds(finalCluster)) {
    const problems = externalProblems(finalCluster, kind);
    if (problems.length > 0) {
      findings.push({
        severity: 'warning',
        code: 'not-external-after-plan',
        message: `after the plan, ${kind.description}: ${problems.join('; ')}`,
        hint: 'a machineSelectorConfig entry with an unusual selector overrides the change; check the entries that match these machines',
      });
    }
  }
  return findings;
}
