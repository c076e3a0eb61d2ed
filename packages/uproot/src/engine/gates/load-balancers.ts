/**
 * `load-balancers-kept`: every Service of type LoadBalancer recorded before the first step still has the same
 * load balancer (status.loadBalancer.ingress hostnames and IPs). A new hostname means the service controller
 * made a new load balancer, which breaks whatever points at the old one: that fails at once. An empty ingress
 * may be transient (a controller hand-over), so it is waited for. Services created or deleted since are not
 * the migration's business and are ignored.
 */
import type { LoadBalancerRecord } from '../journal/journal-schema.js';
import type { ServiceFacts } from './gate-facts.js';
import { fail, pass, someNames, wait, type GateVerdict } from './gate-verdict.js';

export function evaluateLoadBalancersKept(
  baseline: readonly LoadBalancerRecord[],
  services: readonly ServiceFacts[],
): GateVerdict {
  const byKey = new Map(services.map((s) => [`${s.namespace}/${s.name}`, s]));
  const changed: string[] = [];
  const empty: string[] = [];
  let kept = 0;
  for (const record of baseline) {
    const key = `${record.namespace}/${record.name}`;
    const live = byKey.get(key);
    if (!live || live.type !== 'LoadBalancer') continue;
    const before = [...record.hostnames, ...record.ips];
    const now = [...live.hostnames, ...live.ips];
    if (before.length === 0) continue;
    if (now.length === 0) empty.push(key);
    else if (!before.every((x) => now.includes(x)))
      changed.push(`${key}: ${before.join(',')} → ${now.join(',')}`);
    else kept++;
  }
  if (changed.length > 0) {
    return fail(
      `the load balancer of ${changed.length} service(s) changed: ${someNames(changed, 3)}`,
      'a controller recreated the load balancer; check the cloud-controller-manager service controller logs, update DNS records that point at the old name, and consider `uproot rollback`',
    );
  }
  if (empty.length > 0) {
    return wait(
      `${empty.length} LoadBalancer service(s) have no ingress right now: ${someNames(empty)}`,
      'check the service controller (kubectl describe service) for events about the load balancer',
    );
  }
  return pass(`${kept} LoadBalancer service(s) keep the load balancer recorded before the migration`);
}
