/**
 * Rancher's machine label selectors (spec.rkeConfig.machineSelectorConfig[].machineLabelSelector): standard
 * Kubernetes LabelSelector semantics over a machine's labels; a missing selector matches every machine.
 */
import { isRecord } from '../../model/json-value.js';

export const RKE2_ROLES = ['etcd', 'control-plane', 'worker'] as const;
export type Rke2Role = (typeof RKE2_ROLES)[number];

/** The labels Rancher puts on machines of each role (and matches in machineSelectorConfig). */
export const ROLE_LABEL: Readonly<Record<Rke2Role, string>> = {
  etcd: 'rke.cattle.io/etcd-role',
  'control-plane': 'rke.cattle.io/control-plane-role',
  worker: 'rke.cattle.io/worker-role',
};

export type Labels = Readonly<Record<string, string>>;

export function roleLabels(roles: readonly Rke2Role[], extra: Labels = {}): Record<string, string> {
  const labels: Record<string, string> = { ...extra };
  for (const role of roles) labels[ROLE_LABEL[role]] = 'true';
  return labels;
}

/** The selector the seeds use for a role: `matchExpressions: [{key: <role label>, operator: In, values: ['true']}]`. */
export function roleSelector(role: Rke2Role): Record<string, unknown> {
  return { matchExpressions: [{ key: ROLE_LABEL[role], operator: 'In', values: ['true'] }] };
}

interface Requirement {
  readonly key: string;
  readonly operator: string;
  readonly values: readonly string[];
}

function requirements(selector: unknown): Requirement[] | undefined {
  if (selector === undefined || selector === null) return [];
  if (!isRecord(selector)) return undefined;
  const out: Requirement[] = [];
  if (isRecord(selector.matchLabels)) {
    for (const [key, value] of Object.entries(selector.matchLabels)) {
      out.push({ key, operator: 'In', values: [String(value)] });
    }
  }
  if (Array.isArray(selector.matchExpressions)) {
    for (const expr of selector.matchExpressions) {
      if (!isRecord(expr) || typeof expr.key !== 'string' || typeof expr.operator !== 'string')
        return undefined;
      const values = Array.isArray(expr.values) ? expr.values.map(String) : [];
      out.push({ key: expr.key, operator: expr.operator, values });
    }
  }
  return out;
}

function requirementHolds(req: Requirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  switch (req.operator) {
    case 'In':
      return has && value !== undefined && req.values.includes(value);
    case 'NotIn':
      return !has || value === undefined || !req.values.includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      return false;
  }
}

/** True when a machine with these labels matches (no selector: every machine; a malformed one: none). */
export function selectorMatches(selector: unknown, labels: Labels): boolean {
  const reqs = requirements(selector);
  return reqs !== undefined && reqs.every((req) => requirementHolds(req, labels));
}

/** True when the selector is exactly "machines with this role" (the entry the seeds add to). */
export function isRoleSelector(selector: unknown, role: Rke2Role): boolean {
  const reqs = requirements(selector);
  if (!reqs || reqs.length !== 1) return false;
  const [req] = reqs;
  return (
    req !== undefined &&
    req.key === ROLE_LABEL[role] &&
    req.operator === 'In' &&
    req.values.length === 1 &&
    req.values[0] === 'true'
  );
}

/**
 * False only when the selector can never match a machine that has this role (a requirement on the role
 * label that fails for "true"); selectors on other labels might match such a machine, so they count.
 */
export function selectorMayMatchRole(selector: unknown, role: Rke2Role): boolean {
  const reqs = requirements(selector);
  if (reqs === undefined) return false;
  const label = ROLE_LABEL[role];
  return reqs.filter((r) => r.key === label).every((r) => requirementHolds(r, { [label]: 'true' }));
}
