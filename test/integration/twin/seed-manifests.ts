import { stringify } from 'yaml';

/** The chart values and manifests of seeds 002 and 004, as a person following them writes them. */

/** Seed 004, "Helm Chart Installation from CLI", values.yaml clusterRoleRules. */
export const SEED_CLUSTER_ROLE_RULES = [
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['*'] },
  { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
  { apiGroups: [''], resources: ['services'], verbs: ['list', 'patch', 'update', 'watch'] },
  { apiGroups: [''], resources: ['services/status'], verbs: ['list', 'patch', 'update', 'watch'] },
  { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create', 'get'] },
  { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['get', 'list', 'update', 'watch'] },
  { apiGroups: [''], resources: ['endpoints'], verbs: ['create', 'get', 'list', 'watch', 'update'] },
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: ['create', 'get', 'list', 'watch', 'update'],
  },
  { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
];

export interface CcmValuesOptions {
  /** `control-plane` (RKE2) or `controlplane` (RKE). */
  readonly roleLabel: string;
  readonly leaderMigration: boolean;
  /**
   * The CCM image tag. The seeds leave the chart default (v1.35.0); a 1.26 cluster needs the CCM of its own
   * minor (leader-migration.md §6), so tests pin it as uproot's plan does.
   */
  readonly imageTag?: string;
}

export function seedCcmValues(options: CcmValuesOptions): Record<string, unknown> {
  return {
    hostNetworking: true,
    ...(options.imageTag ? { image: { tag: options.imageTag } } : {}),
    tolerations: [
      { effect: 'NoSchedule', key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true' },
      { effect: 'NoSchedule', value: 'true', key: `node-role.kubernetes.io/${options.roleLabel}` },
    ],
    nodeSelector: { [`node-role.kubernetes.io/${options.roleLabel}`]: 'true' },
    args: [
      '--configure-cloud-routes=false',
      '--use-service-account-credentials=true',
      '--v=2',
      '--cloud-provider=aws',
      ...(options.leaderMigration ? ['--enable-leader-migration=true'] : []),
    ],
    clusterRoleRules: SEED_CLUSTER_ROLE_RULES,
  };
}

/**
 * What the seed's tolerations miss on Rancher's RKE2 etcd + control-plane machines: its taints have no value
 * (rancher/rancher pkg/capr/planner getTaints), so `value: 'true'` does not match them.
 */
export const RANCHER_RKE2_TOLERATIONS = [
  { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node-role.kubernetes.io/etcd', operator: 'Exists', effect: 'NoExecute' },
];

/** Seed 004's values with the tolerations Rancher's RKE2 taints need added. */
export function withRancherRke2Tolerations(values: Record<string, unknown>): Record<string, unknown> {
  const tolerations = Array.isArray(values.tolerations) ? (values.tolerations as unknown[]) : [];
  return { ...values, tolerations: [...tolerations, ...RANCHER_RKE2_TOLERATIONS] };
}

/** Seed 004's `spec.rkeConfig.additionalManifest` HelmChart with the given values. */
export function helmChartManifest(values: Record<string, unknown>): string {
  return stringify({
    apiVersion: 'helm.cattle.io/v1',
    kind: 'HelmChart',
    metadata: { name: 'aws-cloud-controller-manager', namespace: 'kube-system' },
    spec: {
      chart: 'aws-cloud-controller-manager',
      repo: 'https://kubernetes.github.io/cloud-provider-aws',
      targetNamespace: 'kube-system',
      bootstrap: true,
      valuesContent: stringify(values),
    },
  });
}

/** Seed 002 step 1: leader migration on the KCM of control-plane machines. */
export const ENABLE_LEADER_MIGRATION_PATCH = {
  spec: {
    rkeConfig: {
      machineSelectorConfig: [
        {
          config: { 'kube-controller-manager-arg': ['enable-leader-migration'] },
          machineLabelSelector: {
            matchExpressions: [{ key: 'rke.cattle.io/control-plane-role', operator: 'In', values: ['true'] }],
          },
        },
      ],
    },
  },
};
