import type { KubeObject } from '../kube/kube-types.js';

/**
 * The per-controller service accounts a controller manager acts as with `--use-service-account-credentials`
 * (kube-system/<controller>), with the rules of Kubernetes' bootstrap controller roles
 * (`system:controller:<name>`, plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go), reduced to
 * the cloud controllers the sandbox runs. KCM and CCM use the same accounts, as upstream.
 */

const EVENTS = {
  apiGroups: ['', 'events.k8s.io'],
  resources: ['events'],
  verbs: ['create', 'patch', 'update'],
};

export const CONTROLLER_ROLES: Readonly<Record<string, readonly Record<string, unknown>[]>> = {
  'service-controller': [
    { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch', 'patch', 'update'] },
    { apiGroups: [''], resources: ['services/status'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
    EVENTS,
  ],
  'node-controller': [
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch', 'update', 'delete', 'patch'] },
    { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['pods/status'], verbs: ['patch', 'update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'delete'] },
    EVENTS,
  ],
  'cloud-node-lifecycle-controller': [
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch', 'delete', 'patch', 'update'] },
    { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch', 'update'] },
    EVENTS,
  ],
  'cloud-node-controller': [
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch', 'delete', 'patch', 'update'] },
    { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch', 'update'] },
    EVENTS,
  ],
  'route-controller': [
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
    EVENTS,
  ],
};

export function controllerRbacObjects(): { resource: string; object: KubeObject }[] {
  const out: { resource: string; object: KubeObject }[] = [];
  for (const [name, rules] of Object.entries(CONTROLLER_ROLES)) {
    const role = `system:controller:${name}`;
    out.push(
      {
        resource: 'v1/serviceaccounts',
        object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'kube-system' } },
      },
      {
        resource: 'rbac.authorization.k8s.io/v1/clusterroles',
        object: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: role, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
          rules: [...rules],
        },
      },
      {
        resource: 'rbac.authorization.k8s.io/v1/clusterrolebindings',
        object: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: role, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
          subjects: [{ kind: 'ServiceAccount', name, namespace: 'kube-system' }],
        },
      },
    );
  }
  return out;
}
