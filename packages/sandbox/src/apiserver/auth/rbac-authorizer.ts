import type { KubeObject } from '../kube-object.js';
import { BoundedCache } from './bounded-cache.js';
import type { UserInfo } from './identity.js';
import { ScopeBindings, type ApplicableBinding } from './rbac-index.js';
import { ruleAllows, type RequestAttributes } from './rbac-rules.js';

/** Where RBAC objects come from (the store, in the server). */
export interface RbacSource {
  clusterRoleBindings(): Iterable<KubeObject>;
  roleBindings(namespace: string): Iterable<KubeObject>;
  clusterRole(name: string): KubeObject | undefined;
  role(namespace: string, name: string): KubeObject | undefined;
  /**
   * Calls `listener` synchronously after any Role, ClusterRole, RoleBinding or ClusterRoleBinding changes;
   * returns the unsubscribe. A source that offers it lets the authorizer keep its index and decisions
   * between requests; without it every decision reads the source afresh.
   */
  onChange?(listener: () => void): () => void;
}

export interface Decision {
  readonly allowed: boolean;
  /** Why: the binding that allowed it, or what could not be resolved (RBAC's aggregated errors). */
  readonly reason: string;
}

const MASTERS: Decision = Object.freeze({ allowed: true, reason: '' });

/** Namespaces, user/scope pairs and distinct requests come from clients: each cache is bounded. */
const MAX_NAMESPACES = 1024;
const MAX_USER_SCOPES = 4096;
const MAX_DECISIONS = 16_384;

/**
 * RBAC as kube-apiserver evaluates it, plus the `system:masters` short-circuit that precedes it. Missing
 * roles referenced by matching bindings are reported in the reason, like `RBAC: role.rbac... not found`.
 *
 * Bindings are indexed by subject (built lazily per scope), each user's applicable bindings are resolved
 * once, and decisions are memoised by user and request attributes. With a source that reports changes,
 * all of it is dropped on any RBAC write, so a change applies from the very next request.
 */
export class RbacAuthorizer {
  private cluster: ScopeBindings | undefined;
  private readonly namespaces = new BoundedCache<string, ScopeBindings>(MAX_NAMESPACES);
  private readonly applicable = new BoundedCache<string, readonly ApplicableBinding[]>(MAX_USER_SCOPES);
  private readonly decisions = new BoundedCache<string, Decision>(MAX_DECISIONS);
  private readonly userKeys = new WeakMap<UserInfo, string>();
  private readonly unsubscribe: (() => void) | undefined;

  constructor(private readonly source: RbacSource) {
    this.unsubscribe = source.onChange?.(() => this.invalidate());
  }

  authorize(a: RequestAttributes): Decision {
    if (a.user.groups.includes('system:masters')) return MASTERS;
    if (!this.unsubscribe) this.invalidate();
    const user = this.userKey(a.user);
    // Only what RBAC reads is in the key: the path matters for non-resource requests alone.
    const key =
      user +
      JSON.stringify([
        a.verb,
        a.isResourceRequest ? '' : a.path,
        a.isResourceRequest,
        a.apiGroup,
        a.resource,
        a.subresource,
        a.namespace,
        a.name,
      ]);
    let decision = this.decisions.get(key);
    if (decision === undefined) {
      decision = this.decide(a, user);
      this.decisions.set(key, decision);
    }
    return decision;
  }

  /** Forgets the index and every cached decision (called on any RBAC change). */
  invalidate(): void {
    this.cluster = undefined;
    this.namespaces.clear();
    this.applicable.clear();
    this.decisions.clear();
  }

  /** Stops listening to the source. */
  close(): void {
    this.unsubscribe?.();
  }

  private decide(a: RequestAttributes, user: string): Decision {
    const errors: string[] = [];
    const scopes = a.namespace ? ['', a.namespace] : [''];
    for (const namespace of scopes) {
      for (const binding of this.bindingsFor(a.user, user, namespace)) {
        if (binding.kind === 'missing-role') errors.push(binding.error);
        else if (binding.rules.some((r) => ruleAllows(r, a)))
          return { allowed: true, reason: binding.allowedReason };
      }
    }
    // utilerrors.NewAggregate prints one error bare and several in brackets.
    const reason = errors.length === 0 ? '' : errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
    return { allowed: false, reason: reason ? `RBAC: ${reason}` : '' };
  }

  /** The bindings of one scope ('' = cluster) that name the user, resolved, in evaluation order. */
  private bindingsFor(user: UserInfo, userKey: string, namespace: string): readonly ApplicableBinding[] {
    const key = JSON.stringify(namespace) + userKey;
    let found = this.applicable.get(key);
    if (found === undefined) {
      found = this.scope(namespace).applicableTo(user, this.source);
      this.applicable.set(key, found);
    }
    return found;
  }

  private scope(namespace: string): ScopeBindings {
    if (!namespace) {
      this.cluster ??= new ScopeBindings(this.source.clusterRoleBindings(), '');
      return this.cluster;
    }
    let scope = this.namespaces.get(namespace);
    if (scope === undefined) {
      scope = new ScopeBindings(this.source.roleBindings(namespace), namespace);
      this.namespaces.set(namespace, scope);
    }
    return scope;
  }

  private userKey(user: UserInfo): string {
    let key = this.userKeys.get(user);
    if (key === undefined) {
      key = JSON.stringify([user.name, user.groups]);
      this.userKeys.set(user, key);
    }
    return key;
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
