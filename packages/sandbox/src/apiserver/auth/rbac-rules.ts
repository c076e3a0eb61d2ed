import { isJsonObject, type KubeObject } from '../kube-object.js';
import type { UserInfo } from './identity.js';

/** What a request asks to do, as the authorizer sees it (authorizer.Attributes). */
export interface RequestAttributes {
  readonly user: UserInfo;
  readonly verb: string;
  readonly isResourceRequest: boolean;
  /** For non-resource requests. */
  readonly path: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

export interface PolicyRule {
  readonly verbs?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

export interface Subject {
  readonly kind?: string;
  readonly apiGroup?: string;
  readonly name?: string;
  readonly namespace?: string;
}

function has(list: readonly string[] | undefined, value: string): boolean {
  return list !== undefined && (list.includes('*') || list.includes(value));
}

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const resources = rule.resources ?? [];
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of resources) {
    if (r === '*' || r === combined) return true;
    if (subresource && (r === `*/${subresource}` || r === `${resource}/*`)) return true;
  }
  return false;
}

function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === '*' || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

/** rbac.RuleAllows: verbs, groups, resources (incl. `resource/sub`, `*`), resourceNames, nonResourceURLs. */
export function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.isResourceRequest) return nonResourceUrlMatches(rule, a.path);
  if (!has(rule.apiGroups, a.apiGroup)) return false;
  if (!resourceMatches(rule, a.resource, a.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

/** Whether a binding subject names the user; service account subjects default to the binding's namespace. */
export function subjectMatches(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.name;
    case 'Group':
      return subject.name !== undefined && user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${subject.name ?? ''}`;
    }
    default:
      return false;
  }
}

export function rulesOf(role: KubeObject | undefined): PolicyRule[] {
  const rules = role?.rules;
  return Array.isArray(rules) ? (rules.filter(isJsonObject) as PolicyRule[]) : [];
}

export function subjectsOf(binding: KubeObject): Subject[] {
  const subjects = binding.subjects;
  return Array.isArray(subjects) ? (subjects.filter(isJsonObject) as Subject[]) : [];
}

export interface RoleRef {
  readonly kind: string;
  readonly name: string;
}

export function roleRefOf(binding: KubeObject): RoleRef {
  const ref = isJsonObject(binding.roleRef) ? binding.roleRef : {};
  return { kind: String(ref.kind ?? ''), name: String(ref.name ?? '') };
}
