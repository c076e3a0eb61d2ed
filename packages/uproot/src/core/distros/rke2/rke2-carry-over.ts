/**
 * What the RKE2 control plane's kube-controller-manager does today that the CCM must take over: the flags that
 * decide route and nodeipam, and the in-tree cloud config (`cloud-provider-config`).
 */
import { carryCloudConfig, parseAwsCloudConfig, type CloudConfigCarry } from '../../cloud-config/index.js';
import type { PlanFinding } from '../../model/plan-types.js';
import { kcmCloudFlags, type KcmCloudFlags, type PlannedCcm } from '../shared/controller-handover.js';
import { argList, rke2EffectiveConfig } from './effective-config.js';
import { roleLabels } from './machine-selector.js';

const CONFIG_KEY = 'cloud-provider-config';

/**
 * RKE2's kube-controller-manager defaults (k3s pkg/daemons/control/server.go controllerManager:
 * allocate-node-cidrs true, configure-cloud-routes false, cluster-cidr from the server's cluster-cidr, default
 * 10.42.0.0/16), then kube-controller-manager-arg of the control-plane machines.
 */
export function rke2KcmCloudFlags(cluster: unknown): KcmCloudFlags {
  const config = rke2EffectiveConfig(cluster, roleLabels(['control-plane']));
  const cidr = typeof config['cluster-cidr'] === 'string' ? config['cluster-cidr'] : '10.42.0.0/16';
  return kcmCloudFlags(
    argList(config['kube-controller-manager-arg']),
    ['allocate-node-cidrs=true', 'configure-cloud-routes=false', `cluster-cidr=${cidr}`],
    'spec.rkeConfig (kube-controller-manager-arg of the control-plane machines)',
  );
}

/**
 * `cloud-provider-config` of the control-plane machines: the file's content, which Rancher writes to a file on
 * each node and passes as --cloud-config (rancher/rancher pkg/capr/planner/config.go, fileParams), or
 * `secret://namespace:name`, a Secret in the management cluster that uproot does not read.
 */
export function rke2CloudConfig(
  cluster: unknown,
  ccms: readonly PlannedCcm[],
): { readonly carry?: CloudConfigCarry; readonly findings: readonly PlanFinding[] } {
  const value = rke2EffectiveConfig(cluster, roleLabels(['control-plane']))[CONFIG_KEY];
  if (typeof value !== 'string' || value.trim() === '') return { findings: [] };
  const field = `spec.rkeConfig.machineGlobalConfig.${CONFIG_KEY}`;
  if (value.startsWith('secret://')) {
    return {
      findings: [
        {
          severity: 'warning',
          code: 'cloud-config-in-secret',
          message: `${CONFIG_KEY} names ${value}, a Secret in the management cluster: uproot does not read Secrets, so its settings are not carried into the CCM and stop applying after the switch`,
          field,
          hint: 'copy the [Global] settings the CCM still reads into a ConfigMap kube-system/aws-cloud-config (key cloud.conf) and add it to the chart values with extraVolumes, extraVolumeMounts and --cloud-config, as uproot does for an inline config',
        },
      ],
    };
  }
  const carry = carryCloudConfig(
    parseAwsCloudConfig(value),
    CONFIG_KEY,
    ccms.map((c) => c.release),
  );
  return { carry, findings: carry.findings };
}
