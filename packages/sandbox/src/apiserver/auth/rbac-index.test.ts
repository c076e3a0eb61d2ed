import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom, VirtualClock } from 'uproot';
import type { KubeObject } from '../kube-object.js';
import { builtinKinds } from '../registry/builtin-kinds.js';
import { ResourceRegistry } from '../registry/resource-registry.js';
import { ObjectStore } from '../store/object-store.js';
import { bootstrapRbac } from './bootstrap-rbac.js';
import { userInfoOf, type UserInfo } from './identity.js';
import { RbacAuthorizer, type Decision, type RbacSource } from './rbac-authorizer.js';
import {
  roleRefOf,
  ruleAllows,
  rulesOf,
  subjectMatches,
  subjectsOf,
  type RequestAttributes,
} from './rbac-rules.js';
import { storeRbacSource } from './store-rbac-source.js';

/** The authorizer as it was before the index: a full scan of every binding per request (the oracle). */
function scanAuthorize(source: RbacSource, a: RequestAttributes): Decision {
  if (a.user.groups.includes('system:masters')) return { allowed: true, reason: '' };
  const describe = (binding: KubeObject, ns: string): string => {
    const s = subjectsOf(binding).find((sub) => subjectMatches(sub, a.user, ns));
    if (!s) return '';
    return s.kind === 'ServiceAccount'
      ? `ServiceAccount "${s.name ?? ''}/${s.namespace || ns}"`
      : `${s.kind ?? ''} "${s.name ?? ''}"`;
  };
  const errors: string[] = [];
  for (const binding of source.clusterRoleBindings()) {
    if (!subjectsOf(binding).some((s) => subjectMatches(s, a.user, ''))) continue;
    const ref = roleRefOf(binding);
    const role = ref.kind === 'ClusterRole' ? source.clusterRole(ref.name) : undefined;
    if (!role) {
      errors.push(`clusterrole.rbac.authorization.k8s.io "${ref.name}" not found`);
      continue;
    }
    if (rulesOf(role).some((r) => ruleAllows(r, a))) {
      return {
        allowed: true,
        reason: `RBAC: allowed by ClusterRoleBinding "${binding.metadata?.name ?? ''}" of ClusterRole "${ref.name}" to ${describe(binding, '')}`,
      };
    }
  }
  if (a.namespace) {
    for (const binding of source.roleBindings(a.namespace)) {
      if (!subjectsOf(binding).some((s) => subjectMatches(s, a.user, a.namespace))) continue;
      const ref = roleRefOf(binding);
      const role =
        ref.kind === 'ClusterRole' ? source.clusterRole(ref.name) : source.role(a.namespace, ref.name);
      if (!role) {
        errors.push(
          ref.kind === 'ClusterRole'
            ? `clusterrole.rbac.authorization.k8s.io "${ref.name}" not found`
            : `role.rbac.authorization.k8s.io "${ref.name}" not found`,
        );
        continue;
      }
      if (rulesOf(role).some((r) => ruleAllows(r, a))) {
        return {
          allowed: true,
          reason: `RBAC: allowed by RoleBinding "${binding.metadata?.name ?? ''}/${a.namespace}" of ${ref.kind} "${ref.name}" to ${describe(binding, a.namespace)}`,
        };
      }
    }
  }
  const reason = errors.length === 0 ? '' : errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
  return { allowed: false, reason: reason ? `RBAC: ${reason}` : '' };
}

/** An in-memory source whose policy can be swapped, announcing each swap like the store does. */
function mutableSource(
  initial: KubeObject[],
  announce: boolean,
): RbacSource & { set(o: KubeObject[]): void } {
  let objects = initial;
  const listeners = new Set<() => void>();
  const of = (kind: string): KubeObject[] => objects.filter((o) => o.kind === kind);
  return {
    clusterRoleBindings: () => of('ClusterRoleBinding'),
    roleBindings: (ns) => of('RoleBinding').filter((b) => b.metadata?.namespace === ns),
    clusterRole: (name) => of('ClusterRole').find((r) => r.metadata?.name === name),
    role: (ns, name) => of('Role').find((r) => r.metadata?.namespace === ns && r.metadata?.name === name),
    ...(announce
      ? {
          onChange(listener: () => void) {
            listeners.add(listener);
            return () => listeners.delete(listener);
          },
        }
      : {}),
    set(next) {
      objects = next;
      for (const l of listeners) l();
    },
  };
}

const NAMES = ['alice', 'bob', 'system:serviceaccount:ns1:sa', 'system:serviceaccount:ns2:sa', '5'];
const GROUPS = ['devs', 'ops', 'system:authenticated', 'system:serviceaccounts:ns1'];
const NAMESPACES = ['ns1', 'ns2'];
const ROLE_NAMES = ['r1', 'r2', 'missing'];

const subject = fc.record(
  {
    kind: fc.constantFrom('User', 'Group', 'ServiceAccount', 'Robot'),
    name: fc.oneof(fc.constantFrom(...NAMES, ...GROUPS, 'sa'), fc.constant(5)),
    namespace: fc.constantFrom('', 'ns1', 'ns2'),
  },
  { requiredKeys: ['kind'] },
);
const rule = fc.oneof(
  fc.record(
    {
      verbs: fc.subarray(['get', 'list', 'patch', '*'], { minLength: 1 }),
      apiGroups: fc.subarray(['', 'apps', '*'], { minLength: 1 }),
      resources: fc.subarray(['pods', 'pods/status', '*/status', 'nodes', '*'], { minLength: 1 }),
      resourceNames: fc.subarray(['a', 'b']),
    },
    { requiredKeys: ['verbs', 'apiGroups', 'resources'] },
  ),
  fc.record({
    verbs: fc.subarray(['get', '*'], { minLength: 1 }),
    nonResourceURLs: fc.subarray(['/healthz', '/api/*', '*'], { minLength: 1 }),
  }),
);
const roleRef = fc.record({
  kind: fc.constantFrom('ClusterRole', 'Role', 'Other'),
  name: fc.constantFrom(...ROLE_NAMES),
});
const policy = fc
  .record({
    clusterRoles: fc.array(fc.array(rule, { maxLength: 3 }), { minLength: 2, maxLength: 2 }),
    roles: fc.array(fc.array(rule, { maxLength: 3 }), { minLength: 4, maxLength: 4 }),
    clusterBindings: fc.array(fc.record({ ref: roleRef, subjects: fc.array(subject, { maxLength: 3 }) }), {
      maxLength: 5,
    }),
    roleBindings: fc.array(
      fc.record({
        namespace: fc.constantFrom(...NAMESPACES),
        ref: roleRef,
        subjects: fc.array(subject, { maxLength: 3 }),
      }),
      { maxLength: 6 },
    ),
  })
  .map((p): KubeObject[] => [
    ...p.clusterRoles.map((rules, i) => ({ kind: 'ClusterRole', metadata: { name: `r${i + 1}` }, rules })),
    ...p.roles.map((rules, i) => ({
      kind: 'Role',
      metadata: { name: `r${(i % 2) + 1}`, namespace: NAMESPACES[i >> 1] },
      rules,
    })),
    ...p.clusterBindings.map((b, i) => ({
      kind: 'ClusterRoleBinding',
      metadata: { name: `crb${i}` },
      roleRef: b.ref,
      subjects: b.subjects,
    })),
    ...p.roleBindings.map((b, i) => ({
      kind: 'RoleBinding',
      metadata: { name: `rb${i}`, namespace: b.namespace },
      roleRef: b.ref,
      subjects: b.subjects,
    })),
  ]);
const user = fc.record({
  name: fc.constantFrom(...NAMES),
  groups: fc.subarray([...GROUPS, 'system:masters']),
});
const request = fc.record({
  verb: fc.constantFrom('get', 'list', 'patch'),
  isResourceRequest: fc.boolean(),
  path: fc.constantFrom('/healthz', '/api/v1', '/metrics'),
  apiGroup: fc.constantFrom('', 'apps'),
  apiVersion: fc.constant('v1'),
  resource: fc.constantFrom('pods', 'nodes'),
  subresource: fc.constantFrom('', 'status'),
  namespace: fc.constantFrom('', 'ns1', 'ns2'),
  name: fc.constantFrom('', 'a', 'b'),
});

describe('RbacAuthorizer index and caches', () => {
  it('decides exactly as a full scan of every binding, for any policy, user and request', () => {
    fc.assert(
      fc.property(
        policy,
        policy,
        fc.array(fc.tuple(user, request), { minLength: 1, maxLength: 25 }),
        (before, after, asks) => {
          const cached = mutableSource(before, true);
          const uncached = mutableSource(before, false);
          const authorizers = [new RbacAuthorizer(cached), new RbacAuthorizer(uncached)];
          for (const objects of [before, after]) {
            cached.set(objects);
            uncached.set(objects);
            // Twice: the second pass is answered from the caches.
            for (const pass of [1, 2]) {
              for (const [u, r] of asks) {
                const a: RequestAttributes = { ...r, user: u as UserInfo };
                const expected = scanAuthorize(cached, a);
                for (const authorizer of authorizers)
                  expect(authorizer.authorize(a), `pass ${pass}`).toEqual(expected);
              }
            }
          }
        },
      ),
      { numRuns: 300, seed: 42 },
    );
  });

  it('keeps serving a source that cannot announce changes correctly after it changes', () => {
    const source = mutableSource(bootstrapRbac(), false);
    const authorizer = new RbacAuthorizer(source);
    const bob = userInfoOf({ name: 'b', token: 't', user: 'bob' });
    const ask: RequestAttributes = {
      user: bob,
      verb: 'list',
      isResourceRequest: true,
      path: '',
      apiGroup: '',
      apiVersion: 'v1',
      resource: 'nodes',
      subresource: '',
      namespace: '',
      name: '',
    };
    expect(authorizer.authorize(ask).allowed).toBe(false);
    source.set([
      ...bootstrapRbac(),
      {
        kind: 'ClusterRoleBinding',
        metadata: { name: 'bob-node' },
        roleRef: { kind: 'ClusterRole', name: 'system:node' },
        subjects: [{ kind: 'User', name: 'bob' }],
      },
    ]);
    expect(authorizer.authorize(ask).allowed).toBe(true);
  });
});

function storeWithBootstrapRbac(): ObjectStore {
  const registry = new ResourceRegistry();
  for (const t of builtinKinds()) registry.add(t);
  const store = new ObjectStore(registry, {
    clock: new VirtualClock(Date.parse('2026-01-01T00:00:00Z')),
    random: seededRandom(3),
    watchWindow: 100,
  });
  for (const name of ['default', 'kube-system', 'apps']) store.create('namespaces', { metadata: { name } });
  for (const obj of bootstrapRbac()) {
    store.create(`${obj.kind!.toLowerCase()}s.rbac.authorization.k8s.io`, obj, {
      namespace: obj.metadata?.namespace,
    });
  }
  return store;
}

describe('RbacAuthorizer on the store', () => {
  const ccm = userInfoOf({
    name: 'ccm',
    token: 't',
    user: 'system:serviceaccount:kube-system:cloud-controller-manager',
  });
  const lease = (verb: string, name: string, namespace = 'kube-system'): RequestAttributes => ({
    user: ccm,
    verb,
    isResourceRequest: true,
    path: '',
    apiGroup: 'coordination.k8s.io',
    apiVersion: 'v1',
    resource: 'leases',
    subresource: '',
    namespace,
    name,
  });

  it('applies a role change, a new binding and a deleted role on the very next decision', () => {
    const store = storeWithBootstrapRbac();
    const authorizer = new RbacAuthorizer(storeRbacSource(store));
    const migration = lease('get', 'cloud-provider-extraction-migration');
    expect(authorizer.authorize(lease('get', 'cloud-controller-manager')).allowed).toBe(true);
    expect(authorizer.authorize(migration)).toEqual({ allowed: false, reason: '' });

    store.patch(
      'roles.rbac.authorization.k8s.io',
      'kube-system',
      'system::leader-locking-cloud-controller-manager',
      'merge',
      {
        rules: [
          {
            apiGroups: ['coordination.k8s.io'],
            resources: ['leases'],
            resourceNames: ['cloud-provider-extraction-migration'],
            verbs: ['get', 'update'],
          },
        ],
      },
    );
    expect(authorizer.authorize(migration)).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "system::leader-locking-cloud-controller-manager/kube-system" of Role "system::leader-locking-cloud-controller-manager" to ServiceAccount "cloud-controller-manager/kube-system"',
    });
    // The patch replaced the rules: the old lease name is no longer granted.
    expect(authorizer.authorize(lease('get', 'cloud-controller-manager')).allowed).toBe(false);

    const inApps = lease('list', '', 'apps');
    expect(authorizer.authorize(inApps).allowed).toBe(false);
    store.create(
      'rolebindings.rbac.authorization.k8s.io',
      {
        metadata: { name: 'ccm-reads', namespace: 'apps' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'lease-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'cloud-controller-manager', namespace: 'kube-system' }],
      },
      { namespace: 'apps' },
    );
    expect(authorizer.authorize(inApps)).toEqual({
      allowed: false,
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "lease-reader" not found',
    });
    store.create('clusterroles.rbac.authorization.k8s.io', {
      metadata: { name: 'lease-reader' },
      rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list'] }],
    });
    expect(authorizer.authorize(inApps).allowed).toBe(true);
    store.delete('clusterroles.rbac.authorization.k8s.io', undefined, 'lease-reader');
    expect(authorizer.authorize(inApps).allowed).toBe(false);
    store.create('clusterroles.rbac.authorization.k8s.io', {
      metadata: { name: 'lease-reader' },
      rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list'] }],
    });
    expect(authorizer.authorize(inApps).allowed).toBe(true);
    store.delete('rolebindings.rbac.authorization.k8s.io', 'apps', 'ccm-reads');
    expect(authorizer.authorize(inApps)).toEqual({ allowed: false, reason: '' });
  });

  it('stops following the store once closed', () => {
    const store = storeWithBootstrapRbac();
    const authorizer = new RbacAuthorizer(storeRbacSource(store));
    const ask = lease('list', '', 'apps');
    expect(authorizer.authorize(ask).allowed).toBe(false);
    authorizer.close();
    store.create('clusterrolebindings.rbac.authorization.k8s.io', {
      metadata: { name: 'ccm-all' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'cloud-controller-manager', namespace: 'kube-system' }],
    });
    // The memoised denial stands: nothing told the closed authorizer about the new binding.
    expect(authorizer.authorize(ask).allowed).toBe(false);
    expect(new RbacAuthorizer(storeRbacSource(store)).authorize(ask).allowed).toBe(true);
  });
});
