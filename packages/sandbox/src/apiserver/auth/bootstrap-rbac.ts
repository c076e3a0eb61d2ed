import type { KubeObject } from '../kube-object.js';
import type { PolicyRule, Subject } from './rbac-rules.js';

const RBAC_V1 = 'rbac.authorization.k8s.io/v1';
const BOOTSTRAP_META = {
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
};

function rule(
  verbs: string[],
  apiGroups: string[],
  resources: string[],
  resourceNames?: string[],
): PolicyRule {
  return { verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) };
}

function clusterRole(name: string, rules: PolicyRule[]): KubeObject {
  return { apiVersion: RBAC_V1, kind: 'ClusterRole', metadata: { name, ...BOOTSTRAP_META }, rules };
}

function clusterRoleBinding(name: string, role: string, subjects: Subject[]): KubeObject {
  return {
    apiVersion: RBAC_V1,
    kind: 'ClusterRoleBinding',
    metadata: { name, ...BOOTSTRAP_META },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects,
  };
}

function role(namespace: string, name: string, rules: PolicyRule[]): KubeObject {
  return { apiVersion: RBAC_V1, kind: 'Role', metadata: { name, namespace, ...BOOTSTRAP_META }, rules };
}

function roleBinding(namespace: string, name: string, roleName: string, subjects: Subject[]): KubeObject {
  return {
    apiVersion: RBAC_V1,
    kind: 'RoleBinding',
    metadata: { name, namespace, ...BOOTSTRAP_META },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
    subjects,
  };
}

const user = (name: string): Subject => ({ kind: 'User', name, apiGroup: 'rbac.authorization.k8s.io' });
const group = (name: string): Subject => ({ kind: 'Group', name, apiGroup: 'rbac.authorization.k8s.io' });
const serviceAccount = (namespace: string, name: string): Subject => ({
  kind: 'ServiceAccount',
  name,
  namespace,
});

const DISCOVERY_URLS = [
  '/api',
  '/api/*',
  '/apis',
  '/apis/*',
  '/healthz',
  '/livez',
  '/openapi',
  '/openapi/*',
  '/readyz',
  '/version',
  '/version/',
];
const PUBLIC_INFO_URLS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];
const EVENTS = rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']);

/**
 * The bootstrap policy of a real cluster, reduced to what matters for migrations. The leader-locking roles
 * keep the older upstream shape (get/update only on their own lease name), which is what the migration
 * guides patch to add `cloud-provider-extraction-migration`.
 */
export function bootstrapRbac(): KubeObject[] {
  return [
    clusterRole('cluster-admin', [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]),
    clusterRoleBinding('cluster-admin', 'cluster-admin', [group('system:masters')]),
    clusterRole('system:discovery', [{ verbs: ['get'], nonResourceURLs: DISCOVERY_URLS }]),
    clusterRoleBinding('system:discovery', 'system:discovery', [group('system:authenticated')]),
    clusterRole('system:public-info-viewer', [{ verbs: ['get'], nonResourceURLs: PUBLIC_INFO_URLS }]),
    clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [
      group('system:authenticated'),
      group('system:unauthenticated'),
    ]),
    clusterRole('system:basic-user', [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
    ]),
    clusterRoleBinding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
    clusterRole('system:kube-controller-manager', [
      EVENTS,
      rule(['create'], ['coordination.k8s.io'], ['leases']),
      rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
      rule(['create'], [''], ['secrets', 'serviceaccounts']),
      rule(['delete'], [''], ['secrets']),
      rule(['get'], [''], ['namespaces', 'secrets', 'serviceaccounts']),
      rule(['update'], [''], ['secrets', 'serviceaccounts']),
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], [''], ['serviceaccounts/token']),
      // Approximates the per-controller roles the in-tree cloud loops use (node lifecycle, routes, service LBs).
      rule(['get', 'update', 'patch', 'delete'], [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status', 'services/status', 'pods/status']),
      rule(['get', 'delete'], [''], ['pods']),
      rule(['get'], [''], ['services', 'endpoints', 'configmaps']),
    ]),
    clusterRoleBinding('system:kube-controller-manager', 'system:kube-controller-manager', [
      user('system:kube-controller-manager'),
    ]),
    clusterRole('system:node', [
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status', 'pods/status']),
      rule(['get', 'list', 'watch', 'create', 'delete'], [''], ['pods']),
      rule(['get', 'list', 'watch'], [''], ['services', 'endpoints', 'configmaps', 'secrets']),
      rule(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
      // bootstrappolicy NodeRules: projected service account tokens (the Node authorizer narrows these to
      // the accounts of the node's pods; the twin leaves that to NodeRestriction's pod binding check).
      rule(['get'], [''], ['serviceaccounts']),
      rule(['create'], [''], ['serviceaccounts/token']),
      EVENTS,
    ]),
    clusterRoleBinding('system:node', 'system:node', [group('system:nodes')]),
    role('kube-system', 'system::leader-locking-kube-controller-manager', [
      rule(['watch'], ['', 'coordination.k8s.io'], ['configmaps', 'leases']),
      rule(['get', 'update'], [''], ['configmaps'], ['kube-controller-manager']),
      rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
    ]),
    roleBinding(
      'kube-system',
      'system::leader-locking-kube-controller-manager',
      'system::leader-locking-kube-controller-manager',
      [user('system:kube-controller-manager'), serviceAccount('kube-system', 'kube-controller-manager')],
    ),
    role('kube-system', 'system::leader-locking-cloud-controller-manager', [
      rule(['watch'], ['', 'coordination.k8s.io'], ['configmaps', 'leases']),
      rule(['get', 'update'], [''], ['configmaps'], ['cloud-controller-manager']),
      rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['cloud-controller-manager']),
    ]),
    roleBinding(
      'kube-system',
      'system::leader-locking-cloud-controller-manager',
      'system::leader-locking-cloud-controller-manager',
      [user('system:cloud-controller-manager'), serviceAccount('kube-system', 'cloud-controller-manager')],
    ),
  ];
}
