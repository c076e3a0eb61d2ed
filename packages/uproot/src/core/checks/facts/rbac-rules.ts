/**
 * RBAC rule matching (k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac): a rule allows a request when its
 * verbs, apiGroups and resources match (or are `*`) and, if it lists resourceNames, the request names one of
 * them. A request without a name (create, an unfiltered list) never matches a rule with resourceNames.
 * Used to write fixes that keep existing rules and to re-evaluate a fixed snapshot; the check itself asks
 * the API server (SubjectAccessReview), which sees every authorizer.
 */
import type {
  Identity,
  PolicyRule,
  ResourceAttributes,
  RoleBindingFacts,
  RoleFacts,
  Subject,
} from '../../model/snapshot.js';

export function ruleAllows(rule: PolicyRule, attrs: ResourceAttributes): boolean {
  const has = (list: readonly string[], value: string) => list.includes('*') || list.includes(value);
  if (
    !has(rule.verbs, attrs.verb) ||
    !has(rule.apiGroups, attrs.group) ||
    !has(rule.resources, attrs.resource)
  ) {
    return false;
  }
  if (!rule.resourceNames || rule.resourceNames.length === 0) return true;
  return attrs.name !== undefined && rule.resourceNames.includes(attrs.name);
}

/** Service-account subjects without a namespace default to the binding's (as the RBAC authorizer does). */
export function subjectMatches(subject: Subject, identity: Identity, bindingNamespace = ''): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === identity.user;
    case 'Group':
      return identity.groups.includes(subject.name);
    case 'ServiceAccount':
      return (
        identity.user === `system:serviceaccount:${subject.namespace || bindingNamespace}:${subject.name}`
      );
    default:
      return false;
  }
}

/** Whether the namespaced Roles bound to `identity` allow the request. */
export function rolesAllow(
  roles: readonly RoleFacts[],
  bindings: readonly RoleBindingFacts[],
  identity: Identity,
  attrs: ResourceAttributes,
): boolean {
  return bindings.some(
    (b) =>
      b.roleRef.kind === 'Role' &&
      b.subjects.some((s) => subjectMatches(s, identity, b.namespace)) &&
      roles.some(
        (r) =>
          r.name === b.roleRef.name &&
          r.namespace === b.namespace &&
          r.rules.some((rule) => ruleAllows(rule, attrs)),
      ),
  );
}

/** The RBAC subject for an identity (service accounts as ServiceAccount, everything else as User). */
export function subjectFor(identity: Identity): Subject {
  const sa = /^system:serviceaccount:([^:]+):(.+)$/.exec(identity.user);
  return sa
    ? { kind: 'ServiceAccount', name: sa[2]!, namespace: sa[1]! }
    : { kind: 'User', name: identity.user };
}

export function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  const eq = (x: readonly string[] = [], y: readonly string[] = []) =>
    x.length === y.length && [...x].sort().every((v, i) => v === [...y].sort()[i]);
  return (
    eq(a.apiGroups, b.apiGroups) &&
    eq(a.resources, b.resources) &&
    eq(a.verbs, b.verbs) &&
    eq(a.resourceNames, b.resourceNames)
  );
}
