/**
 * Applies a mechanical fix (tags, RBAC rules, an IAM statement) to a snapshot, as if the person had run its
 * commands and preflight read the account again. Tests use it to show that each fix makes its check pass;
 * it never touches a real cluster. IAM fixes drop the role's stale evaluation: re-run evaluateIam.
 */
import type { Fix } from './check-result.js';
import type {
  AwsFacts,
  IamRoleFacts,
  LeaseRbacFacts,
  PreflightSnapshot,
  RoleBindingFacts,
  RoleFacts,
} from '../model/snapshot.js';
import { rolesAllow } from './facts/rbac-rules.js';

export function isMechanical(fix: Fix): boolean {
  return fix.type === 'ec2-tags' || fix.type === 'rbac-role' || fix.type === 'iam-policy';
}

export function applyFix(snapshot: PreflightSnapshot, fix: Fix): PreflightSnapshot {
  switch (fix.type) {
    case 'ec2-tags':
      return withAws(snapshot, (aws) => applyTags(aws, fix.create, fix.remove));
    case 'rbac-role':
      return applyRbac(snapshot, fix);
    case 'iam-policy':
      return applyIam(snapshot, fix);
    default:
      return snapshot;
  }
}

function withAws(snapshot: PreflightSnapshot, f: (aws: AwsFacts) => AwsFacts): PreflightSnapshot {
  return snapshot.aws.state === 'ok'
    ? { ...snapshot, aws: { state: 'ok', value: f(snapshot.aws.value) } }
    : snapshot;
}

type TagFix = Extract<Fix, { type: 'ec2-tags' }>;

function applyTags(aws: AwsFacts, create: TagFix['create'], remove: TagFix['remove']): AwsFacts {
  const retag = <T extends { readonly tags: Readonly<Record<string, string>> }>(id: string, item: T): T => {
    let tags: Record<string, string> | undefined;
    for (const r of remove) {
      if (r.resourceIds.includes(id) && r.key in (tags ?? item.tags)) {
        tags ??= { ...item.tags };
        delete tags[r.key];
      }
    }
    for (const c of create) {
      if (c.resourceIds.includes(id)) {
        tags ??= { ...item.tags };
        tags[c.key] = c.value ?? '';
      }
    }
    return tags ? { ...item, tags } : item;
  };
  const map = <T extends { readonly tags: Readonly<Record<string, string>> }>(
    r: { state: 'ok'; value: readonly T[] } | { state: 'unavailable'; reason: string },
    idOf: (t: T) => string,
  ) => (r.state === 'ok' ? { state: 'ok' as const, value: r.value.map((t) => retag(idOf(t), t)) } : r);
  return {
    ...aws,
    instances: map(aws.instances, (i) => i.instanceId),
    subnets: map(aws.subnets, (s) => s.subnetId),
    securityGroups: map(aws.securityGroups, (g) => g.groupId),
  };
}

function applyRbac(snapshot: PreflightSnapshot, fix: Extract<Fix, { type: 'rbac-role' }>): PreflightSnapshot {
  const rbac = snapshot.kube.leaseRbac;
  if (rbac.state !== 'ok') return snapshot;
  const roles: RoleFacts[] = [
    ...(rbac.value.roles.state === 'ok' ? rbac.value.roles.value : []).filter(
      (r) => !(r.name === fix.name && r.namespace === fix.namespace),
    ),
    { namespace: fix.namespace, name: fix.name, rules: fix.rules },
  ];
  const bindings: RoleBindingFacts[] = [
    ...(rbac.value.roleBindings.state === 'ok' ? rbac.value.roleBindings.value : []),
  ];
  if (fix.bind.length > 0) {
    const i = bindings.findIndex((b) => b.name === fix.name && b.namespace === fix.namespace);
    const existing =
      i >= 0
        ? bindings[i]!
        : {
            namespace: fix.namespace,
            name: fix.name,
            roleRef: { kind: 'Role', name: fix.name },
            subjects: [],
          };
    const updated = { ...existing, subjects: [...existing.subjects, ...fix.bind] };
    if (i >= 0) bindings[i] = updated;
    else bindings.push(updated);
  }
  const value: LeaseRbacFacts = {
    roles: { state: 'ok', value: roles },
    roleBindings: { state: 'ok', value: bindings },
    reviews: rbac.value.reviews.map((r) =>
      r.allowed || !rolesAllow(roles, bindings, r.identity, r.attributes)
        ? r
        : { ...r, allowed: true, reason: `RBAC: Role ${fix.name}` },
    ),
  };
  return { ...snapshot, kube: { ...snapshot.kube, leaseRbac: { state: 'ok', value } } };
}

function applyIam(snapshot: PreflightSnapshot, fix: Extract<Fix, { type: 'iam-policy' }>): PreflightSnapshot {
  const next = withAws(snapshot, (aws) => {
    if (aws.iam.state !== 'ok') return aws;
    const role = aws.iam.value.roles[fix.roleName];
    if (!role || role.state !== 'ok') return aws;
    const updated: IamRoleFacts = {
      ...role.value,
      policies: [
        ...role.value.policies.filter((p) => !(p.kind === 'inline' && p.name === fix.policyName)),
        { name: fix.policyName, kind: 'inline', document: fix.document },
      ],
    };
    return {
      ...aws,
      iam: {
        state: 'ok',
        value: {
          ...aws.iam.value,
          roles: { ...aws.iam.value.roles, [fix.roleName]: { state: 'ok', value: updated } },
        },
      },
    };
  });
  if (next.iam?.state !== 'ok') return next;
  const roles = { ...next.iam.value.roles };
  delete roles[fix.roleName];
  return { ...next, iam: { state: 'ok', value: { roles } } };
}
