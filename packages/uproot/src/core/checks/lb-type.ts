/**
 * lb-type: every LoadBalancer Service the cloud provider manages must ask, with its
 * `service.beta.kubernetes.io/aws-load-balancer-type` annotation, for the kind of load balancer that serves
 * it now (`nlb` for a Network Load Balancer, anything else for a classic ELB). When the two disagree, the next
 * service controller to sync the Service (every manager restarts during the migration, and a new leader syncs
 * every Service) creates a load balancer of the other kind and leaves the old one running and billed
 * (kubernetes/cloud-provider-aws#1254); from v1.36.0 the CCM refuses to sync the Service instead
 * (kubernetes/cloud-provider-aws#1325). The serving kind comes from ELB/ELBv2 (the load balancer with the
 * status hostname's DNS name), else from the hostname's shape as #1325 reads it.
 */
import { hasFeature } from '../ccm/index.js';
import { fail, pass, skip, type CheckResult, type Fix, type ResourceRef } from './check-result.js';
import { plural, type CheckContext } from './check-context.js';
import { ccmsInPlay } from '../ccm/index.js';
import { isCcmLoadBalancer } from './lb-subnets.js';
import type { LoadBalancerFacts, LoadBalancerServiceFacts } from '../model/snapshot.js';

const ID = 'lb-type';
export const LB_TYPE_ANNOTATION = 'service.beta.kubernetes.io/aws-load-balancer-type';

type Kind = 'classic' | 'network';
const LABEL: Record<Kind, string> = { classic: 'classic ELB', network: 'NLB' };
const A_LABEL: Record<Kind, string> = { classic: 'a classic ELB', network: 'an NLB' };

/** What the annotation asks for (isNLB in pkg/providers/v1/aws_loadbalancer.go: only `nlb` means NLB). */
export function wantedKind(s: LoadBalancerServiceFacts): Kind {
  return s.annotations[LB_TYPE_ANNOTATION] === 'nlb' ? 'network' : 'classic';
}

/** Classic ELB: `…elb.amazonaws.com`; NLB: `…elb.<region>.amazonaws.com` (aws_validations.go, #1325). */
export function kindFromHostname(host: string): Kind | undefined {
  const h = host.toLowerCase().replace(/\.cn$/, '');
  if (h.endsWith('.elb.amazonaws.com')) return 'classic';
  if (/\.elb\.[a-z0-9-]+\.amazonaws\.com$/.test(h)) return 'network';
  return undefined;
}

interface Mismatch {
  readonly service: LoadBalancerServiceFacts;
  readonly host: string;
  readonly serving: Kind;
  readonly wanted: Kind;
}

export function checkLbType(ctx: CheckContext): CheckResult {
  const services = ctx.snapshot.kube.loadBalancerServices;
  if (services.state === 'unavailable') return skip(ID, services.reason);
  const served = services.value.filter((s) => isCcmLoadBalancer(s) && s.ingressHostnames.length > 0);
  if (served.length === 0) return pass(ID, 'no LoadBalancer Service the CCM manages has a load balancer yet');
  const lbs = ctx.snapshot.aws.state === 'ok' ? ctx.snapshot.aws.value.loadBalancers : undefined;
  const byDns = new Map<string, LoadBalancerFacts>(
    lbs?.state === 'ok' ? lbs.value.map((lb) => [lb.dnsName.toLowerCase(), lb]) : [],
  );
  const mismatches: Mismatch[] = [];
  const details: string[] = [];
  for (const service of served) {
    const host = service.ingressHostnames[0]!;
    const found = byDns.get(host.toLowerCase());
    const serving: Kind | undefined = found
      ? found.type === 'classic'
        ? 'classic'
        : found.type === 'network'
          ? 'network'
          : undefined
      : kindFromHostname(host);
    if (!serving) continue;
    const wanted = wantedKind(service);
    details.push(
      `Service ${service.namespace}/${service.name}: served by ${LABEL[serving]} ${host}${found ? '' : ' (by its hostname)'}, annotation asks for ${LABEL[wanted]}`,
    );
    if (serving !== wanted) mismatches.push({ service, host, serving, wanted });
  }
  if (mismatches.length === 0) {
    return pass(
      ID,
      `${plural(served.length, 'LoadBalancer Service')}: each asks for the kind of load balancer that serves it`,
      {
        details,
      },
    );
  }
  const refuses = ccmsInPlay(ctx).some((c) => hasFeature(c.release, 'refuses-lb-type-change'));
  const first = mismatches[0]!;
  const consequence = refuses
    ? `the CCM (v1.36.0 or later) refuses to sync it, so its load balancer stops following node changes (kubernetes/cloud-provider-aws#1325)`
    : `the next service controller to sync it (every controller manager restarts during the migration) creates ${A_LABEL[first.wanted]} with a new address and leaves ${first.host} running (kubernetes/cloud-provider-aws#1254)`;
  const resources: ResourceRef[] = mismatches.map((m) => ({
    kind: 'Service',
    name: m.service.name,
    namespace: m.service.namespace,
  }));
  const fixes: Fix[] = [
    {
      type: 'commands',
      description:
        'make the annotation ask for the load balancer that serves each Service now (do this before granting the role any missing load-balancer permission, or the in-tree provider makes the new one first)',
      commands: mismatches.map((m) =>
        m.serving === 'network'
          ? `kubectl -n ${m.service.namespace} annotate service ${m.service.name} ${LB_TYPE_ANNOTATION}=nlb --overwrite`
          : `kubectl -n ${m.service.namespace} annotate service ${m.service.name} ${LB_TYPE_ANNOTATION}-`,
      ),
    },
    {
      type: 'manual',
      description:
        'to change the kind on purpose, replace the Service after the migration rather than its annotation (clients follow the new address)',
      steps: [
        'create a second Service with the wanted aws-load-balancer-type and the same selector and ports',
        'point DNS (or the clients) at its new hostname and wait for traffic to move',
        'delete the old Service: its finalizer makes the controller delete the old load balancer',
      ],
    },
  ];
  return fail(
    ID,
    `Service ${first.service.namespace}/${first.service.name} is served by ${LABEL[first.serving]} ${first.host} but its ${LB_TYPE_ANNOTATION} annotation asks for ${A_LABEL[first.wanted]}: ${consequence}`,
    fixes,
    { resources, details },
  );
}
