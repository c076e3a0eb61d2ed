/** RKE plan helpers: the HelmChart without RKE2's bootstrap flag, and the node-naming findings. */
import type { PlanFinding } from '../../plan/plan-types.js';
import type { JsonRecord } from '../shared/json-value.js';
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
