/**
 * The aws-cloud-controller-manager Helm chart's values.yaml (kubernetes/cloud-provider-aws
 * charts/aws-cloud-controller-manager, chart 0.0.11, app v1.35.0): the fields its templates read. The one place
 * uproot keeps them; the preflight checks and the sandbox's chart renderer both derive from it.
 */
import { CCM_IMAGE_REPOSITORY, CHART_DEFAULT_CCM_TAG } from './ccm-image.js';

export const CCM_CHART_NAME = 'aws-cloud-controller-manager';
export const CCM_CHART_VERSION = '0.0.11';
export const CCM_CHART_REPO = 'https://kubernetes.github.io/cloud-provider-aws';

/** The chart as the seeds install it: its repository, the release and the DaemonSet it makes. */
export const CCM_CHART = {
  chart: CCM_CHART_NAME,
  release: CCM_CHART_NAME,
  repoName: CCM_CHART_NAME,
  repo: CCM_CHART_REPO,
  namespace: 'kube-system',
  daemonSet: CCM_CHART_NAME,
} as const;

export const CCM_CHART_DEFAULT_VALUES = {
  namespace: 'kube-system',
  args: ['--v=2', '--cloud-provider=aws'],
  image: { repository: CCM_IMAGE_REPOSITORY, tag: CHART_DEFAULT_CCM_TAG },
  nameOverride: 'aws-cloud-controller-manager',
  nodeSelector: { 'node-role.kubernetes.io/control-plane': '' },
  clusterRoleRules: [
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    { apiGroups: [''], resources: ['nodes'], verbs: ['*'] },
    { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
    { apiGroups: [''], resources: ['services'], verbs: ['list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['services/status'], verbs: ['list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create'] },
    { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: [''], resources: ['endpoints'], verbs: ['create', 'get', 'list', 'watch', 'update'] },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['create', 'get', 'list', 'watch', 'update'],
    },
    { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
    { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
    { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
  ],
  resources: { requests: { cpu: '200m' } },
  env: [],
  securityContext: {},
  podSecurityContext: {},
  podAnnotations: {},
  tolerations: [
    { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
    { key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' },
    { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
  ],
  // The chart leaves hostNetworking unset, so the template renders hostNetwork: false.
  hostNetworking: false,
  dnsPolicy: 'Default',
  clusterRoleName: 'system:cloud-controller-manager',
  roleBindingName: 'cloud-controller-manager:apiserver-authentication-reader',
  serviceAccountName: 'cloud-controller-manager',
  roleName: 'extension-apiserver-authentication-reader',
  extraVolumes: [],
  extraVolumeMounts: [],
} as const;

/** A fresh, mutable copy of the defaults (for Helm-style merging). */
export function ccmChartDefaultValues(): Record<string, unknown> {
  return structuredClone(CCM_CHART_DEFAULT_VALUES) as unknown as Record<string, unknown>;
}
