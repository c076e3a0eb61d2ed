/**
 * migration-lease-rbac: during leader migration both managers take the lease
 * kube-system/cloud-provider-extraction-migration. The API server is asked (one SubjectAccessReview per
 * identity and verb) whether the KCM (user system:kube-controller-manager) and the CCM (service account
 * kube-system:cloud-controller-manager) may create, get, list and update it. The fix follows the Kubernetes
 * task (seed 003): patch the leader-locking Roles, written out with the full rules list because a merge
 * patch of `rules` replaces the list; plus a name-less `create` rule where needed, since RBAC cannot restrict
 * create by resourceName (the name is not known when the request is authorized).
 */
import { fail, pass, skip, type CheckResult, type Fix } from './check-result.js';
import type { CheckContext } from './check-context.js';
import type {
  AccessReview,
  Identity,
  PolicyRule,
  ResourceAttributes,
  RoleBindingFacts,
  RoleFacts,
} from '../model/snapshot.js';
import type { Readable } from '../model/readable.js';
import { ruleAllows, sameRule, subjectFor, subjectMatches } from './facts/rbac-rules.js';
import { CHART_DEFAULTS, findCcmDeployments } from '../ccm/index.js';

const ID = 'migration-lease-rbac';
export const MIGRATION_LEASE = 'cloud-provider-extraction-migration';
const NS = 'kube-system';

export const KCM_IDENTITY: Identity = {
  label: 'kube-controller-manager',
  user: 'system:kube-controller-manager',
  groups: ['system:authenticated'],
};
export const CCM_IDENTITY: Identity = {
  label: 'cloud-controller-manager',
  user: 'system:serviceaccount:kube-system:cloud-controller-manager',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};

const LEADER_LOCKING_ROLE: Readonly<Record<string, string>> = {
  [KCM_IDENTITY.user]: 'system::leader-locking-kube-controller-manager',
  [CCM_IDENTITY.user]: 'system::leader-locking-cloud-controller-manager',
};

export const MIGRATION_LEASE_VERBS = ['create', 'get', 'list', 'update'] as const;

/** The reviews the adapter asks the API server, in order: per identity, per verb. */
export function migrationLeaseReviewRequests(): { identity: Identity; attributes: ResourceAttributes }[] {
  return [KCM_IDENTITY, CCM_IDENTITY].flatMap((identity) =>
    MIGRATION_LEASE_VERBS.map((verb) => ({
      identity,
      attributes: {
        namespace: NS,
        verb,
        group: 'coordination.k8s.io',
        resource: 'leases',
        // create is authorized before the object has a name; the others name the lease.
        ...(verb === 'create' ? {} : { name: MIGRATION_LEASE }),
      },
    })),
  );
}

/** The rule seed 003 adds to each leader-locking Role. */
export const MIGRATION_LEASE_RULE: PolicyRule = {
  apiGroups: ['coordination.k8s.io'],
  resources: ['leases'],
  resourceNames: [MIGRATION_LEASE],
  verbs: ['create', 'list', 'get', 'update'],
};
const CREATE_LEASES_RULE: PolicyRule = {
  apiGroups: ['coordination.k8s.io'],
  resources: ['leases'],
  verbs: ['create'],
};

export function checkMigrationLeaseRbac(ctx: CheckContext): CheckResult {
  const rbac = ctx.snapshot.kube.leaseRbac;
  if (rbac.state === 'unavailable') return skip(ID, rbac.reason);
  const reviews = withPlannedChartRules(ctx, rbac.value.reviews);
  const denied = reviews.filter((r) => !r.allowed);
  const resources = [{ kind: 'Lease', name: MIGRATION_LEASE, namespace: NS }];
  const details = reviews.map(
    (r) =>
      `${r.identity.label} ${r.attributes.verb}: ${r.allowed ? 'allowed' : 'denied'}${r.reason ? ` (${r.reason})` : ''}`,
  );
  if (denied.length === 0) {
    return pass(ID, `both managers may create, get, list and update lease ${NS}/${MIGRATION_LEASE}`, {
      resources,
      details,
    });
  }
  const byIdentity = new Map<string, { identity: Identity; verbs: string[] }>();
  for (const r of denied) {
    const entry = byIdentity.get(r.identity.user) ?? { identity: r.identity, verbs: [] };
    entry.verbs.push(r.attributes.verb);
    byIdentity.set(r.identity.user, entry);
  }
  const fixes = [...byIdentity.values()].map(({ identity, verbs }) =>
    roleFix(identity, verbs, rbac.value.roles, rbac.value.roleBindings),
  );
  const summary = [...byIdentity.values()]
    .map((e) => `${e.identity.label} cannot ${e.verbs.join('/')}`)
    .join('; ');
  return fail(ID, `the managers cannot use lease ${NS}/${MIGRATION_LEASE}: ${summary}`, fixes, {
    resources: [
      ...resources,
      ...fixes.flatMap((f) =>
        f.type === 'rbac-role' ? [{ kind: 'Role', name: f.name, namespace: NS }] : [],
      ),
    ],
    details,
  });
}

/**
 * Before the CCM is installed its service account has no permissions yet; the chart's ClusterRole (planned
 * values, or the chart's defaults) will grant leases cluster-wide, so judge the CCM by those rules until then.
 */
function withPlannedChartRules(ctx: CheckContext, reviews: readonly AccessReview[]): AccessReview[] {
  const deployments = findCcmDeployments(ctx.snapshot.kube, ctx.profile.definition);
  if (deployments.some((d) => d.kind === 'daemonset' || d.kind === 'static-pod')) return [...reviews];
  const planned =
    deployments.find((d) => d.clusterRoleRules)?.clusterRoleRules ?? CHART_DEFAULTS.clusterRoleRules;
  return reviews.map((r) =>
    !r.allowed &&
    r.identity.user === CCM_IDENTITY.user &&
    planned.some((rule) => ruleAllows(rule, r.attributes))
      ? { ...r, allowed: true, reason: "granted by the chart's ClusterRole once the CCM is installed" }
      : r,
  );
}

function roleFix(
  identity: Identity,
  deniedVerbs: readonly string[],
  roles: Readable<readonly RoleFacts[]>,
  bindings: Readable<readonly RoleBindingFacts[]>,
): Fix {
  const name = LEADER_LOCKING_ROLE[identity.user]!;
  const known = roles.state === 'ok';
  const existing = known ? roles.value.find((r) => r.name === name && r.namespace === NS) : undefined;
  const rules: PolicyRule[] = [...(existing?.rules ?? [])];
  const add = (rule: PolicyRule) => {
    if (!rules.some((r) => sameRule(r, rule))) rules.push(rule);
  };
  add(MIGRATION_LEASE_RULE);
  if (deniedVerbs.includes('create')) add(CREATE_LEASES_RULE);
  const finalRules = rules.map((r) => ({
    apiGroups: [...r.apiGroups],
    resources: [...r.resources],
    verbs: [...r.verbs],
    ...(r.resourceNames ? { resourceNames: [...r.resourceNames] } : {}),
  }));
  const subject = subjectFor(identity);
  const binding =
    bindings.state === 'ok' ? bindings.value.find((b) => b.name === name && b.namespace === NS) : undefined;
  const bound = bindings.state === 'ok' ? bindingCovers(bindings.value, name, identity) : true;
  const create = known && !existing;
  const commands: string[] = [];
  if (existing || !known) {
    commands.push(
      `kubectl patch -n ${NS} role '${name}' --type=merge -p '${JSON.stringify({ rules: finalRules })}'`,
    );
  } else {
    commands.push(
      `kubectl apply -f - <<'EOF'\n${JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: NS }, rules: finalRules }, null, 2)}\nEOF`,
    );
  }
  if (!bound) {
    const who =
      subject.kind === 'ServiceAccount'
        ? `--serviceaccount=${subject.namespace}:${subject.name}`
        : `--user=${subject.name}`;
    commands.push(
      binding
        ? `kubectl patch -n ${NS} rolebinding '${name}' --type=json -p '${JSON.stringify([{ op: 'add', path: '/subjects/-', value: subject }])}'`
        : `kubectl create -n ${NS} rolebinding '${name}' --role='${name}' ${who}`,
    );
  }
  return {
    type: 'rbac-role',
    description: `${create ? 'create' : 'extend'} Role ${NS}/${name} so ${identity.label} may ${deniedVerbs.join(', ')} the migration lease${
      known
        ? ' (the rules list below keeps the existing rules: a merge patch replaces the whole list)'
        : '; the Role could not be read, so first add its existing rules to the list (a merge patch replaces it)'
    }`,
    namespace: NS,
    name,
    create,
    rules: finalRules,
    bind: bound ? [] : [subject],
    commands,
  };
}

function bindingCovers(bindings: readonly RoleBindingFacts[], role: string, identity: Identity): boolean {
  return bindings.some(
    (b) =>
      b.namespace === NS &&
      b.roleRef.kind === 'Role' &&
      b.roleRef.name === role &&
      b.subjects.some((s) => subjectMatches(s, identity, b.namespace)),
  );
}
