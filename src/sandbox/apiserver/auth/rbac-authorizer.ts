import type { KubeObject } from '../kube-object.js';
import type { UserInfo } from './identity.js';
import {
  roleRefOf,
  ruleAllows,
  rulesOf,
  subjectMatches,
  subjectsOf,
  type RequestAttributes,
} from './rbac-rules.js';

/** Where RBAC objects come from (the store, in the server). */
export interface RbacSource {
  clusterRoleBindings(): Iterable<KubeObject>;
  roleBindings(namespace: string): Iterable<KubeObject>;
  clusterRole(name: string): KubeObject | undefined;
  role(namespace: string, name: string): KubeObject | undefined;
}

export interface Decision {
  readonly allowed: boolean;
  /** Why: the binding that allowed it, or what could not be resolved (RBAC's aggregated errors). */
  readonly reason: string;
}

function describeSubject(user: UserInfo, binding: KubeObject, namespace: string): string {
  const s = subjectsOf(binding).find((sub) => subjectMatches(sub, user, namespace));
  if (!s) return '';
  return s.kind === 'ServiceAccount'
    ? `ServiceAccount "${s.name ?? ''}/${s.namespace || namespace}"`
    : `${s.kind ?? ''} "${s.name ?? ''}"`;
}

/**
 * RBAC as kube-apiserver evaluates it, plus the `system:masters` short-circuit that precedes it. Missing
 * roles referenced by matching bindings are reported in the reason, like `RBAC: role.rbac... not found`.
 */
export class RbacAuthorizer {
  constructor(private readonly source: RbacSource) {}

  authorize(a: RequestAttributes): Decision {
    if (a.user.groups.includes('system:masters')) return { allowed: true, reason: '' };
    const errors: string[] = [];
    for (const binding of this.source.clusterRoleBindings()) {
      if (!subjectsOf(binding).some((s) => subjectMatches(s, a.user, ''))) continue;
      const ref = roleRefOf(binding);
      const role = ref.kind === 'ClusterRole' ? this.source.clusterRole(ref.name) : undefined;
      if (!role) {
        errors.push(`clusterrole.rbac.authorization.k8s.io "${ref.name}" not found`);
        continue;
      }
      if (rulesOf(role).some((r) => ruleAllows(r, a))) {
        return {
          allowed: true,
          reason: `RBAC: allowed by ClusterRoleBinding "${binding.metadata?.name ?? ''}" of ClusterRole "${ref.name}" to ${describeSubject(a.user, binding, '')}`,
        };
      }
    }
    if (a.namespace) {
      for (const binding of this.source.roleBindings(a.namespace)) {
        if (!subjectsOf(binding).some((s) => subjectMatches(s, a.user, a.namespace))) continue;
        const ref = roleRefOf(binding);
        const role =
          ref.kind === 'ClusterRole'
            ? this.source.clusterRole(ref.name)
            : this.source.role(a.namespace, ref.name);
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
            reason: `RBAC: allowed by RoleBinding "${binding.metadata?.name ?? ''}/${a.namespace}" of ${ref.kind} "${ref.name}" to ${describeSubject(a.user, binding, a.namespace)}`,
          };
        }
      }
    }
    // utilerrors.NewAggregate prints one error bare and several in brackets.
    const reason = errors.length === 0 ? '' : errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
    return { allowed: false, reason: reason ? `RBAC: ${reason}` : '' };
  }
}

/** authorizer.Attributes → the message of the 403 the API server writes (responsewriters.forbiddenMessage). */
export function forbiddenMessage(a: RequestAttributes): string {
  if (!a.isResourceRequest) return `User "${a.user.name}" cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (a.namespace) {
    return `User "${a.user.name}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" in the namespace "${a.namespace}"`;
  }
  return `User "${a.user.name}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" at the cluster scope`;
}
