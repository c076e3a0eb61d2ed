/**
 * What uproot does about the user's own rolling strategy (issue 28, item 5): it keeps the values, and says why
 * the promise holds with them. Rancher's planner (rancher/rancher pkg/capr/planner/planner.go
 * calculateConcurrency) and `rke up` (rancher/rke services/controlplane.go, max_unavailable_controlplane)
 * may restart several control-plane machines at once; each restart of the lease holder still costs one lease
 * expiry, because the next leader waits out the old lease whether it was a running standby or restarted beside
 * it (client-go tools/leaderelection: LeaseDuration after the last renewal, then a RetryPeriod tick), as long
 * as a controller manager comes back within its lease duration. A drain (kubectl pkg/drain filters) skips
 * mirror pods (the KCM, the API server) and, with DaemonSet pods ignored, the CCM's pods, so no controller
 * stops for it. Measured on the twin: scenario rke2-user-strategy (test/integration/demo/user-strategy.test.ts).
 */
import type { PlanFinding } from '../../model/plan-types.js';
import { isRecord, type JsonRecord } from '../../model/json-value.js';

const BOUND =
  'each restart of the lease holder still costs one lease expiry (the next leader waits out the old lease whether its standby kept running or restarted beside it, client-go leaderelection), so the 20 s gap bound holds as long as a controller manager restarts within its 15 s lease; leader election keeps zero overlap whatever the order';

/** Rancher's upgradeStrategy on a provisioning Cluster (spec.rkeConfig.upgradeStrategy). */
export function rke2StrategyFindings(cluster: JsonRecord): PlanFinding[] {
  const spec = isRecord(cluster.spec) ? cluster.spec : {};
  const rke = isRecord(spec.rkeConfig) ? spec.rkeConfig : {};
  const s = isRecord(rke.upgradeStrategy) ? rke.upgradeStrategy : {};
  const field = 'spec.rkeConfig.upgradeStrategy';
  const findings: PlanFinding[] = [];
  const concurrency = typeof s.controlPlaneConcurrency === 'string' ? s.controlPlaneConcurrency : '';
  if (concurrency !== '' && concurrency !== '1') {
    findings.push({
      severity: 'info',
      code: 'user-rolling-concurrency',
      message: `controlPlaneConcurrency is "${concurrency}": Rancher may restart ${concurrency === '0' ? 'every' : 'more than one'} control-plane machine at once in each roll uproot causes. uproot keeps your value (it is intact at the end): ${BOUND}.`,
      field: `${field}.controlPlaneConcurrency`,
      hint: 'set it to "1" before migrating if you want one control-plane machine at a time',
    });
  }
  for (const [name, tier] of [
    ['controlPlaneDrainOptions', 'etcd and control-plane'],
    ['workerDrainOptions', 'worker'],
  ] as const) {
    const drain = isRecord(s[name]) ? s[name] : {};
    if (drain.enabled !== true) continue;
    const refuses = drain.ignoreDaemonSets === false;
    findings.push({
      severity: refuses ? 'warning' : 'info',
      code: 'user-drain',
      message: refuses
        ? `${name} drain ${tier} machines with ignoreDaemonSets false: kubectl drain refuses every node that runs DaemonSet pods (the CCM's, the CNI's), so Rancher's roll waits on the first ${tier} machine ("cannot delete DaemonSet-managed Pods").`
        : `${name} is enabled: Rancher cordons and drains each ${tier} machine before its plan and uncordons it after. The drain leaves static pods (the KCM) and DaemonSet pods (the CCM) alone, so no controller stops for it; ${tier === 'worker' ? 'workloads move as you configured' : 'the uncordon also lifts uproot\u2019s cordon-control-plane on that node (harmless: the KCMs keep the cloud controllers under the migration lease until the switch)'}. uproot keeps your drain options.`,
      field: `${field}.${name}`,
      ...(refuses ? { hint: `set ${name}.ignoreDaemonSets: true (Rancher's default) before migrating` } : {}),
    });
  }
  return findings;
}

/** RKE's upgrade_strategy in cluster.yml (or Rancher's rancher_kubernetes_engine_config form), `root` the RKE config. */
export function rkeStrategyFindings(root: JsonRecord): PlanFinding[] {
  const s = isRecord(root.upgrade_strategy) ? root.upgrade_strategy : {};
  const findings: PlanFinding[] = [];
  const raw = s.max_unavailable_controlplane;
  const value = raw === undefined || raw === null ? '' : String(raw);
  if (value !== '' && value !== '1') {
    findings.push({
      severity: 'info',
      code: 'user-rolling-concurrency',
      message: `max_unavailable_controlplane is ${value}: rke up may upgrade more than one controlplane host at once in each run uproot causes. uproot keeps your value (it is intact at the end): ${BOUND}.`,
      field: 'upgrade_strategy.max_unavailable_controlplane',
      hint: 'set it to 1 before migrating if you want one controlplane host at a time',
    });
  }
  if (s.drain === true) {
    const input = isRecord(s.node_drain_input) ? s.node_drain_input : {};
    const refuses = input.ignore_daemonsets === false;
    findings.push({
      severity: refuses ? 'warning' : 'info',
      code: 'user-drain',
      message: refuses
        ? 'drain is true with node_drain_input.ignore_daemonsets false: kubectl drain refuses every host that runs DaemonSet pods (the CCM\u2019s, the CNI\u2019s), so rke up fails on the first host ("error draining node").'
        : 'drain is true: rke up drains each host after cordoning it. The drain leaves the controller managers\u2019 containers and DaemonSet pods (the CCM) alone, so no controller stops for it. uproot keeps your drain settings.',
      field: 'upgrade_strategy.drain',
      ...(refuses
        ? { hint: 'set node_drain_input.ignore_daemonsets: true (RKE\u2019s default) before migrating' }
        : {}),
    });
  }
  return findings;
}
