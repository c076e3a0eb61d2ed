import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube-object.js';
import { bootstrapRbac } from './bootstrap-rbac.js';
import { userInfoOf, type UserInfo } from './identity.js';
import { forbiddenMessage, RbacAuthorizer, type RbacSource } from './rbac-authorizer.js';
import { ruleAllows, subjectMatches, type RequestAttributes } from './rbac-rules.js';

function sourceOf(objects: KubeObject[]): RbacSource {
  const of = (kind: string): KubeObject[] => objects.filter((o) => o.kind === kind);
  return {
    clusterRoleBindings: () => of('ClusterRoleBinding'),
    roleBindings: (ns) => of('RoleBinding').filter((b) => b.metadata?.namespace === ns),
    clusterRole: (name) => of('ClusterRole').find((r) => r.metadata?.name === name),
    role: (ns, name) => of('Role').find((r) => r.metadata?.namespace === ns && r.metadata?.name === name),
  };
}

const kcm = userInfoOf({ name: 'kcm', token: 't', user: 'system:kube-controller-manager' });

function lease(user: UserInfo, verb: string, name: string, namespace = 'kube-system'): RequestAttributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    path: '',
    apiGroup: 'coordination.k8s.io',
    apiVersion: 'v1',
    resource: 'leases',
    subresource: '',
    namespace,
    name,
  };
}

describe('ruleAllows', () => {
  const base = lease(kcm, 'get', 'x');
  it.each([
    [{ verbs: ['get'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] }, true],
    [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['leases'] }, false],
    [{ verbs: ['list'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] }, false],
    [
      { verbs: ['get'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['y'] },
      false,
    ],
    [
      { verbs: ['get'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['x'] },
      true,
    ],
  ])('%j allows: %s', (rule, expected) => {
    expect(ruleAllows(rule, base)).toBe(expected);
  });

  it('matches subresources as resource/sub, */sub and resource/*', () => {
    const a: RequestAttributes = {
      ...base,
      apiGroup: '',
      resource: 'nodes',
      subresource: 'status',
      verb: 'patch',
      namespace: '',
    };
    expect(ruleAllows({ verbs: ['patch'], apiGroups: [''], resources: ['nodes'] }, a)).toBe(false);
    expect(ruleAllows({ verbs: ['patch'], apiGroups: [''], resources: ['nodes/status'] }, a)).toBe(true);
    expect(ruleAllows({ verbs: ['patch'], apiGroups: [''], resources: ['*/status'] }, a)).toBe(true);
    expect(ruleAllows({ verbs: ['patch'], apiGroups: [''], resources: ['nodes/*'] }, a)).toBe(true);
  });

  it('matches non-resource URLs with prefixes', () => {
    const a: RequestAttributes = { ...base, isResourceRequest: false, path: '/apis/apps/v1', verb: 'get' };
    expect(ruleAllows({ verbs: ['get'], nonResourceURLs: ['/apis/*'] }, a)).toBe(true);
    expect(ruleAllows({ verbs: ['get'], nonResourceURLs: ['/api'] }, a)).toBe(false);
  });

  it('matches service accounts, defaulting their namespace to the binding', () => {
    const sa = userInfoOf({
      name: 'ccm',
      token: 't',
      user: 'system:serviceaccount:kube-system:cloud-controller-manager',
    });
    expect(sa.groups).toEqual(
      expect.arrayContaining([
        'system:serviceaccounts',
        'system:serviceaccounts:kube-system',
        'system:authenticated',
      ]),
    );
    expect(
      subjectMatches({ kind: 'ServiceAccount', name: 'cloud-controller-manager' }, sa, 'kube-system'),
    ).toBe(true);
    expect(subjectMatches({ kind: 'ServiceAccount', name: 'cloud-controller-manager' }, sa, '')).toBe(false);
    expect(subjectMatches({ kind: 'Group', name: 'system:serviceaccounts:kube-system' }, sa, '')).toBe(true);
  });
});

describe('RbacAuthorizer with the bootstrap policy', () => {
  it('denies the controller manager the migration lease until the role is patched', () => {
    const objects = bootstrapRbac();
    const authorizer = new RbacAuthorizer(sourceOf(objects));
    const ask = lease(kcm, 'get', 'cloud-provider-extraction-migration');
    expect(authorizer.authorize(lease(kcm, 'get', 'kube-controller-manager')).allowed).toBe(true);
    expect(authorizer.authorize(ask)).toEqual({ allowed: false, reason: '' });
    expect(forbiddenMessage(ask)).toBe(
      'User "system:kube-controller-manager" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"',
    );
    const role = objects.find(
      (o) => o.metadata?.name === 'system::leader-locking-kube-controller-manager' && o.kind === 'Role',
    )!;
    const patched = objects.map((o) =>
      o === role
        ? {
            ...role,
            rules: [
              {
                apiGroups: ['coordination.k8s.io'],
                resources: ['leases'],
                resourceNames: ['cloud-provider-extraction-migration'],
                verbs: ['create', 'list', 'get', 'update'],
              },
            ],
          }
        : o,
    );
    const after = new RbacAuthorizer(sourceOf(patched)).authorize(ask);
    expect(after.allowed).toBe(true);
    expect(after.reason).toBe(
      'RBAC: allowed by RoleBinding "system::leader-locking-kube-controller-manager/kube-system" of Role "system::leader-locking-kube-controller-manager" to User "system:kube-controller-manager"',
    );
  });

  it('lets system:masters do anything and authenticated users read discovery', () => {
    const authorizer = new RbacAuthorizer(sourceOf(bootstrapRbac()));
    const admin = userInfoOf({ name: 'a', token: 't', user: 'admin', groups: ['system:masters'] });
    expect(authorizer.authorize(lease(admin, 'delete', 'x')).allowed).toBe(true);
    const nobody = userInfoOf({ name: 'n', token: 't', user: 'nobody' });
    const discovery: RequestAttributes = {
      ...lease(nobody, 'get', ''),
      isResourceRequest: false,
      path: '/apis',
    };
    expect(authorizer.authorize(discovery).allowed).toBe(true);
    expect(authorizer.authorize(lease(nobody, 'get', 'x')).allowed).toBe(false);
  });

  it('reports bindings to missing roles in the reason', () => {
    const binding: KubeObject = {
      kind: 'RoleBinding',
      metadata: { name: 'b', namespace: 'ns' },
      roleRef: { kind: 'Role', name: 'gone' },
      subjects: [{ kind: 'User', name: 'bob' }],
    };
    const bob = userInfoOf({ name: 'b', token: 't', user: 'bob' });
    expect(new RbacAuthorizer(sourceOf([binding])).authorize(lease(bob, 'get', 'x', 'ns')).reason).toBe(
      'RBAC: role.rbac.authorization.k8s.io "gone" not found',
    );
  });

  it('words cluster-scoped and non-resource denials like the API server', () => {
    const bob = userInfoOf({ name: 'b', token: 't', user: 'bob' });
    expect(
      forbiddenMessage({ ...lease(bob, 'list', ''), apiGroup: '', resource: 'nodes', namespace: '' }),
    ).toBe('User "bob" cannot list resource "nodes" in API group "" at the cluster scope');
    expect(
      forbiddenMessage({
        ...lease(bob, 'patch', 'n'),
        apiGroup: '',
        resource: 'nodes',
        subresource: 'status',
        namespace: '',
      }),
    ).toBe('User "bob" cannot patch resource "nodes/status" in API group "" at the cluster scope');
    expect(forbiddenMessage({ ...lease(bob, 'get', ''), isResourceRequest: false, path: '/metrics' })).toBe(
      'User "bob" cannot get path "/metrics"',
    );
  });
});
