import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  installCcmDaemonSet,
  okValue,
  resultOf,
  snapshotWith,
  type MutableSnapshot,
} from './fixtures/mutable.js';
import { applyFix } from './apply-fix.js';
import { CCM_IDENTITY, KCM_IDENTITY, migrationLeaseReviewRequests } from './migration-lease-rbac.js';
import type { Fix } from './check-result.js';
import type { RoleBindingFacts, RoleFacts } from '../model/snapshot.js';

const KCM_ROLE: RoleFacts = {
  namespace: 'kube-system',
  name: 'system::leader-locking-kube-controller-manager',
  rules: [
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['get', 'update'],
      resourceNames: ['kube-controller-manager'],
    },
  ],
};
const KCM_BINDING: RoleBindingFacts = {
  namespace: 'kube-system',
  name: 'system::leader-locking-kube-controller-manager',
  roleRef: { kind: 'Role', name: 'system::leader-locking-kube-controller-manager' },
  subjects: [{ kind: 'User', name: 'system:kube-controller-manager' }],
};

function denying(m: MutableSnapshot, deny: (user: string, verb: string) => boolean): void {
  const rbac = okValue(m.kube.leaseRbac);
  rbac.reviews = migrationLeaseReviewRequests().map((r) => ({
    identity: { ...r.identity, groups: [...r.identity.groups] },
    attributes: { ...r.attributes },
    allowed: !deny(r.identity.user, r.attributes.verb),
  }));
  rbac.roles = { state: 'ok', value: [structuredClone(KCM_ROLE) as never] };
  rbac.roleBindings = { state: 'ok', value: [structuredClone(KCM_BINDING) as never] };
}

/** An installed CCM, so its service account is judged by the API's answers alone. */
function withCcmInstalled(m: MutableSnapshot): void {
  installCcmDaemonSet(m, 'v1.26.11', []);
}

describe('migration-lease-rbac', () => {
  it('passes when every review is allowed', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'migration-lease-rbac',
      ).status,
    ).toBe('pass');
  });

  it("fails the KCM's get/update with seed 003's patch, keeping the Role's existing rules", () => {
    const s = snapshotWith((m) =>
      denying(m, (user, verb) => user === KCM_IDENTITY.user && (verb === 'get' || verb === 'update')),
    );
    const r = resultOf(s, 'migration-lease-rbac');
    expect(r).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('kube-controller-manager cannot get/update'),
    });
    if (r.status !== 'fail') throw new Error('expected a failure');
    const fix = r.fixes[0]!;
    expect(fix).toMatchObject({
      type: 'rbac-role',
      name: 'system::leader-locking-kube-controller-manager',
      create: false,
      bind: [],
    });
    if (fix.type !== 'rbac-role') throw new Error('expected an RBAC fix');
    expect(fix.rules).toEqual([
      KCM_ROLE.rules[0],
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['cloud-provider-extraction-migration'],
        verbs: ['create', 'list', 'get', 'update'],
      },
    ]);
    expect(fix.commands).toEqual([
      `kubectl patch -n kube-system role 'system::leader-locking-kube-controller-manager' --type=merge -p '${JSON.stringify({ rules: fix.rules })}'`,
    ]);
  });

  it('adds a name-less create rule when create is denied (RBAC cannot restrict create by name)', () => {
    const s = snapshotWith((m) =>
      denying(m, (user, verb) => user === KCM_IDENTITY.user && verb === 'create'),
    );
    const r = resultOf(s, 'migration-lease-rbac');
    const fix = r.status === 'fail' ? r.fixes[0] : undefined;
    expect(fix?.type === 'rbac-role' && fix.rules).toContainEqual({
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['create'],
    });
  });

  it("judges a CCM that is not installed yet by the chart's ClusterRole", () => {
    const s = snapshotWith((m) => denying(m, (user) => user === CCM_IDENTITY.user));
    const r = resultOf(s, 'migration-lease-rbac');
    expect(r.status).toBe('pass');
    expect(r.details).toContain(
      "cloud-controller-manager create: allowed (granted by the chart's ClusterRole once the CCM is installed)",
    );
  });

  it('creates and binds the CCM Role when an installed CCM is denied and no Role exists', () => {
    const s = snapshotWith((m) => {
      denying(m, (user) => user === CCM_IDENTITY.user);
      withCcmInstalled(m);
    });
    const r = resultOf(s, 'migration-lease-rbac');
    const fix = r.status === 'fail' ? r.fixes[0] : undefined;
    expect(fix).toMatchObject({
      type: 'rbac-role',
      name: 'system::leader-locking-cloud-controller-manager',
      create: true,
      bind: [{ kind: 'ServiceAccount', name: 'cloud-controller-manager', namespace: 'kube-system' }],
    });
    expect(fix?.type === 'rbac-role' && fix.commands[1]).toBe(
      "kubectl create -n kube-system rolebinding 'system::leader-locking-cloud-controller-manager' --role='system::leader-locking-cloud-controller-manager' --serviceaccount=kube-system:cloud-controller-manager",
    );
  });

  it('skips when SubjectAccessReviews are forbidden', () => {
    const s = snapshotWith(
      (m) =>
        (m.kube.leaseRbac = {
          state: 'unavailable',
          reason: 'forbidden: cannot create subjectaccessreviews',
        }),
    );
    expect(resultOf(s, 'migration-lease-rbac')).toMatchObject({
      status: 'skip',
      reason: 'forbidden: cannot create subjectaccessreviews',
    });
  });

  it('property: applying the RBAC fixes makes the check pass, whatever was denied', () => {
    const reviews = migrationLeaseReviewRequests();
    fc.assert(
      fc.property(
        fc.subarray(
          reviews.map((_, i) => i),
          { minLength: 1 },
        ),
        fc.boolean(),
        fc.boolean(),
        (denied, rolesKnown, bindingsKnown) => {
          let s = snapshotWith((m) => {
            withCcmInstalled(m);
            denying(m, () => false);
            const rbac = okValue(m.kube.leaseRbac);
            denied.forEach((i) => (rbac.reviews[i]!.allowed = false));
            if (!rolesKnown) rbac.roles = { state: 'ok', value: [] };
            if (!bindingsKnown) rbac.roleBindings = { state: 'ok', value: [] };
          });
          const before = resultOf(s, 'migration-lease-rbac');
          expect(before.status).toBe('fail');
          for (const fix of (before as { fixes: Fix[] }).fixes) s = applyFix(s, fix);
          expect(resultOf(s, 'migration-lease-rbac').status).toBe('pass');
        },
      ),
      { numRuns: 100 },
    );
  });
});
