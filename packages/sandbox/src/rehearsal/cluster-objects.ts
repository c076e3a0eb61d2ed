import { CONTROL_PLANE_ACTIONS, MIGRATION_LEASE_NAME } from 'uproot/core';
import type { KubeObject } from '../apiserver/index.js';
import { LB_CLEANUP_FINALIZER } from '../cloud-controllers/load-balancer-spec.js';
import { formatProviderId, regionOfZone } from '../cloud-controllers/provider-id.js';

/** Kubernetes objects of a cluster that ran the in-tree AWS provider, as plain data (pure). */

export interface NodeSpec {
  readonly name: string;
  readonly instanceId: string;
  readonly zone: string;
  readonly privateIp: string;
  readonly instanceType: string;
  readonly controlPlane: boolean;
  readonly kubeletVersion: string;
  /** Set by the in-tree kubelet; absent for nodes that registered with --cloud-provider=external. */
  readonly initialized: boolean;
  /** Assigned by KCM's nodeipam; with cloud routes, the route controller had routed it (NetworkUnavailable False). */
  readonly podCidr?: string | undefined;
}

/** A Node as an in-tree kubelet registers it (providerID, topology labels), or tainted when external. */
export function nodeObject(spec: NodeSpec): KubeObject {
  const region = regionOfZone(spec.zone);
  const labels: Record<string, string> = {
    'kubernetes.io/hostname': spec.name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    ...(spec.controlPlane
      ? { 'node-role.kubernetes.io/control-plane': 'true', 'node-role.kubernetes.io/etcd': 'true' }
      : { 'node-role.kubernetes.io/worker': 'true' }),
    ...(spec.initialized
      ? {
          'topology.kubernetes.io/zone': spec.zone,
          'failure-domain.beta.kubernetes.io/zone': spec.zone,
          'topology.kubernetes.io/region': region,
          'failure-domain.beta.kubernetes.io/region': region,
          'node.kubernetes.io/instance-type': spec.instanceType,
          'beta.kubernetes.io/instance-type': spec.instanceType,
        }
      : {}),
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: spec.name, labels },
    spec: {
      ...(spec.initialized
        ? { providerID: formatProviderId(spec.zone, spec.instanceId) }
        : {
            taints: [
              { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
            ],
          }),
      ...(spec.podCidr ? { podCIDR: spec.podCidr, podCIDRs: [spec.podCidr] } : {}),
    },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
        },
        ...(spec.podCidr
          ? [
              {
                type: 'NetworkUnavailable',
                status: 'False',
                reason: 'RouteCreated',
                message: 'RouteController created a route',
              },
            ]
          : []),
      ],
      addresses: [
        { type: 'InternalIP', address: spec.privateIp },
        { type: 'Hostname', address: spec.name },
      ],
      nodeInfo: { kubeletVersion: spec.kubeletVersion },
    },
  };
}

/** A LoadBalancer Service as the in-tree service controller leaves it: with its cleanup finalizer. */
export function loadBalancerService(
  namespace: string,
  name: string,
  port: number,
  annotations: Record<string, string> = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace,
      finalizers: [LB_CLEANUP_FINALIZER],
      ...(Object.keys(annotations).length ? { annotations } : {}),
    },
    spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ name: 'http', port, protocol: 'TCP' }] },
  };
}

/**
 * The aws-cloud-controller-manager chart's ClusterRole (prior-art §3): note the leases rule without
 * resourceNames, which is why the CCM needs no patch for the migration lease.
 */
export function ccmRbac(): KubeObject[] {
  const rule = (apiGroups: string[], resources: string[], verbs: string[]) => ({
    apiGroups,
    resources,
    verbs,
  });
  return ccmClusterRole([
    rule([''], ['events'], ['create', 'patch', 'update']),
    rule([''], ['nodes'], ['*']),
    rule([''], ['nodes/status'], ['patch']),
    rule([''], ['services'], ['list', 'patch', 'update', 'watch']),
    rule([''], ['services/status'], ['list', 'patch', 'update', 'watch']),
    rule([''], ['serviceaccounts'], ['create', 'get']),
    rule([''], ['persistentvolumes'], ['get', 'list', 'update', 'watch']),
    rule([''], ['endpoints'], ['create', 'get', 'list', 'watch', 'update']),
    rule(['coordination.k8s.io'], ['leases'], ['create', 'get', 'list', 'watch', 'update']),
    rule([''], ['serviceaccounts/token'], ['create']),
  ]);
}

/** The CCM's ClusterRole with `rules`, bound to the kube-system:cloud-controller-manager service account. */
export function ccmClusterRole(
  rules: readonly unknown[],
): { apiVersion: string; kind: string; metadata: { name: string }; [field: string]: unknown }[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:cloud-controller-manager' },
      rules,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:cloud-controller-manager' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'system:cloud-controller-manager',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'cloud-controller-manager', namespace: 'kube-system' }],
    },
  ];
}

/**
 * The upstream bootstrap roles of the controllers KCM runs under their own service accounts with
 * --use-service-account-credentials (bootstrappolicy controller_policy.go), bound to those accounts. The
 * `system:kube-controller-manager` role itself cannot write services or nodes; real clusters rely on these.
 */
export function controllerServiceAccountRbac(): KubeObject[] {
  const rule = (apiGroups: string[], resources: string[], verbs: string[]) => ({
    apiGroups,
    resources,
    verbs,
  });
  const events = rule(['', 'events.k8s.io'], ['events'], ['create', 'patch', 'update']);
  const roles: Record<string, object[]> = {
    'service-controller': [
      rule([''], ['services'], ['get', 'list', 'watch', 'patch', 'update']),
      rule([''], ['services/status'], ['patch', 'update']),
      rule([''], ['nodes'], ['list', 'watch']),
      events,
    ],
    'route-controller': [
      rule([''], ['nodes'], ['list', 'watch']),
      rule([''], ['nodes/status'], ['patch']),
      events,
    ],
    'cloud-node-lifecycle-controller': [
      rule([''], ['nodes'], ['delete', 'get', 'patch', 'update', 'list']),
      rule([''], ['nodes/status'], ['patch']),
      rule([''], ['pods'], ['list', 'delete']),
      events,
    ],
    'node-controller': [
      rule([''], ['nodes'], ['get', 'list', 'update', 'delete', 'patch']),
      rule([''], ['nodes/status'], ['patch', 'update']),
      rule([''], ['pods'], ['list', 'delete']),
      events,
    ],
  };
  return Object.entries(roles).flatMap(([sa, rules]) => [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `system:controller:${sa}` },
      rules,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `system:controller:${sa}` },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: `system:controller:${sa}`,
      },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: 'kube-system' }],
    },
  ]);
}

export const CONTROLLER_SERVICE_ACCOUNT_NAMES = [
  'service-controller',
  'route-controller',
  'cloud-node-lifecycle-controller',
  'node-controller',
] as const;

/** Seed 003's `kubectl patch … --type=merge` body for the leader-locking roles. */
export function migrationLeaseRolePatch(): { rules: object[] } {
  return {
    rules: [
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: [MIGRATION_LEASE_NAME],
        verbs: ['create', 'list', 'get', 'update'],
      },
    ],
  };
}

export const LEADER_LOCKING_ROLES = [
  'system::leader-locking-kube-controller-manager',
  'system::leader-locking-cloud-controller-manager',
] as const;

/**
 * The control-plane policy of seed 004 (the CCM's needs), as an IAM document, plus what the simulated CCM also
 * calls: DescribeAvailabilityZones, and all of elasticloadbalancing (DescribeTags and friends, missing from the
 * seed's list).
 */
export function controlPlanePolicy(): Record<string, unknown> {
  const actions = [
    ...CONTROL_PLANE_ACTIONS.filter((a) => !a.startsWith('elasticloadbalancing:')),
    'ec2:DescribeAvailabilityZones',
    'elasticloadbalancing:*',
  ];
  return {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: actions, Resource: ['*'] }],
  };
}
