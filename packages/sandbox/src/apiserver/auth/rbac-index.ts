import type { KubeObject } from '../kube-object.js';
import type { UserInfo } from './identity.js';
import {
  roleRefOf,
  rulesOf,
  subjectMatches,
  subjectsOf,
  type PolicyRule,
  type Subject,
} from './rbac-rules.js';

/** What the authorizer needs from one binding that names a user: its rules, or why it grants nothing. */
export type ApplicableBinding =
  | { readonly kind: 'rules'; readonly rules: readonly PolicyRule[]; readonly allowedReason: string }
  | { readonly kind: 'missing-role'; readonly error: string };

/** Roles as the authorizer resolves them: by name, cluster-wide or in the binding's namespace. */
export interface RoleLookup {
  clusterRole(name: string): KubeObject | undefined;
  role(namespace: string, name: string): KubeObject | undefined;
}

const USER = 'u\u0000';
const GROUP = 'g\u0000';

/**
 * The index keys a subject can match under. Service accounts match by user name, so they share the User
 * key space. The keys only pre-select candidates: `subjectMatches` still decides, so odd subjects (missing
 * or non-string names) are judged exactly as before.
 */
function subjectKeys(subject: Subject, bindingNamespace: string): string[] {
  switch (subject.kind) {
    case 'User':
      return typeof subject.name === 'string' ? [USER + subject.name] : [];
    case 'Group':
      return typeof subject.name === 'string' ? [GROUP + subject.name] : [];
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' ? [`${USER}system:serviceaccount:${ns}:${subject.name ?? ''}`] : [];
    }
    default:
      return [];
  }
}

function describeSubject(user: UserInfo, binding: KubeObject, namespace: string): string {
  const s = subjectsOf(binding).find((sub) => subjectMatches(sub, user, namespace));
  if (!s) return '';
  return s.kind === 'ServiceAccount'
    ? `ServiceAccount "${s.name ?? ''}/${s.namespace || namespace}"`
    : `${s.kind ?? ''} "${s.name ?? ''}"`;
}

/**
 * The bindings of one scope (the ClusterRoleBindings, or the RoleBindings of one namespace) in store order,
 * indexed by the subjects they name, so a request looks at the few bindings of its user instead of all.
 */
export class ScopeBindings {
  private readonly bindings: readonly KubeObject[];
  private readonly bySubject = new Map<string, number[]>();

  /** `namespace` is '' for ClusterRoleBindings. */
  constructor(
    bindings: Iterable<KubeObject>,
    private readonly namespace: string,
  ) {
    this.bindings = [...bindings];
    this.bindings.forEach((binding, position) => {
      const keys = new Set(subjectsOf(binding).flatMap((s) => subjectKeys(s, namespace)));
      for (const key of keys) {
        const positions = this.bySubject.get(key);
        if (positions) positions.push(position);
        else this.bySubject.set(key, [position]);
      }
    });
  }

  /**
   * The bindings that name `user`, in store order (the order RBAC walks them, which picks the reason),
   * each resolved to its role's rules or to the "not found" error RBAC aggregates.
   */
  applicableTo(user: UserInfo, roles: RoleLookup): ApplicableBinding[] {
    const candidates = new Set<number>(this.bySubject.get(USER + user.name));
    for (const group of user.groups)
      for (const p of this.bySubject.get(GROUP + group) ?? []) candidates.add(p);
    const out: ApplicableBinding[] = [];
    for (const position of [...candidates].sort((a, b) => a - b)) {
      const binding = this.bindings[position]!;
      if (!subjectsOf(binding).some((s) => subjectMatches(s, user, this.namespace))) continue;
      out.push(
        this.namespace ? this.resolveRoleBinding(binding, user, roles) : resolveCluster(binding, user, roles),
      );
    }
    return out;
  }

  private resolveRoleBinding(binding: KubeObject, user: UserInfo, roles: RoleLookup): ApplicableBinding {
    const ns = this.namespace;
    const ref = roleRefOf(binding);
    const role = ref.kind === 'ClusterRole' ? roles.clusterRole(ref.name) : roles.role(ns, ref.name);
    if (!role) {
      return {
        kind: 'missing-role',
        error:
          ref.kind === 'ClusterRole'
            ? `clusterrole.rbac.authorization.k8s.io "${ref.name}" not found`
            : `role.rbac.authorization.k8s.io "${ref.name}" not found`,
      };
    }
    return {
      kind: 'rules',
      rules: rulesOf(role),
      allowedReason: `RBAC: allowed by RoleBinding "${binding.metadata?.name ?? ''}/${ns}" of ${ref.kind} "${ref.name}" to ${describeSubject(user, binding, ns)}`,
    };
  }
}

function resolveCluster(binding: KubeObject, user: UserInfo, roles: RoleLookup): ApplicableBinding {
  const ref = roleRefOf(binding);
  // A ClusterRoleBinding can only grant a ClusterRole; any other roleRef resolves to nothing.
  const role = ref.kind === 'ClusterRole' ? roles.clusterRole(ref.name) : undefined;
  if (!role)
    return { kind: 'missing-role', error: `clusterrole.rbac.authorization.k8s.io "${ref.name}" not found` };
  return {
    kind: 'rules',
    rules: rulesOf(role),
    allowedReason: `RBAC: allowed by ClusterRoleBinding "${binding.metadata?.name ?? ''}" of ClusterRole "${ref.name}" to ${describeSubject(user, binding, '')}`,
  };
}
