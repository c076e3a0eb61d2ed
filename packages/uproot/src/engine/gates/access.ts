/** `rbac-allows`: a SubjectAccessReview per verb says the user may use the named resource. */
import type { AccessAnswer } from './gate-facts.js';
import { pass, wait, type GateVerdict } from './gate-verdict.js';

/** Groups of the resources a gate names without one (`leases` rather than `leases.coordination.k8s.io`). */
const KNOWN_GROUPS: Readonly<Record<string, string>> = {
  leases: 'coordination.k8s.io',
  roles: 'rbac.authorization.k8s.io',
  rolebindings: 'rbac.authorization.k8s.io',
  configmaps: '',
  nodes: '',
  services: '',
  endpoints: '',
  events: '',
};

export function splitResource(resource: string): { resource: string; group: string } {
  const dot = resource.indexOf('.');
  if (dot > 0) return { resource: resource.slice(0, dot), group: resource.slice(dot + 1) };
  return { resource, group: KNOWN_GROUPS[resource] ?? '' };
}

export function evaluateRbacAllows(
  gate: {
    readonly user: string;
    readonly resource: string;
    readonly namespace: string;
    readonly resourceName: string;
  },
  answers: readonly { readonly verb: string; readonly answer: AccessAnswer }[],
): GateVerdict {
  const denied = answers.filter((a) => !a.answer.allowed);
  const what = `${gate.resource} ${gate.namespace}/${gate.resourceName}`;
  if (denied.length > 0) {
    return wait(
      `${gate.user} may not ${denied.map((d) => d.verb).join(', ')} ${what}${denied[0]?.answer.reason ? ` (${denied[0].answer.reason})` : ''}`,
      `grant it, e.g. add the resourceName to the role system::leader-locking-* in ${gate.namespace} (kubectl auth can-i ${denied[0]?.verb ?? 'get'} ${gate.resource}/${gate.resourceName} -n ${gate.namespace} --as ${gate.user})`,
    );
  }
  return pass(`${gate.user} may ${answers.map((a) => a.verb).join(', ')} ${what}`);
}
