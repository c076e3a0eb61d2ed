/**
 * lb-subnets: when the cluster has LoadBalancer Services, the CCM needs, in every availability zone of the
 * nodes, a subnet it may use: tagged `kubernetes.io/role/elb` (internet-facing) or
 * `kubernetes.io/role/internal-elb` (internal), and not tagged for another cluster. Without the role tags
 * it guesses from route tables, which picks the wrong subnet in many VPCs. Each existing Service's load
 * balancer (status.loadBalancer.ingress[].hostname) must still exist, or the CCM creates a new one and the
 * Service's address changes.
 */
import { fail, pass, skip, warn, type CheckResult, type Fix, type ResourceRef } from './check-result.js';
import { awsSkipReason, plural, type CheckContext } from './check-context.js';
import type { LoadBalancerServiceFacts, SubnetFacts } from '../model/snapshot.js';
import {
  CLUSTER_TAG_PREFIX,
  clusterTagKey,
  dominantClusterId,
  groupTagChanges,
  tagCommands,
} from './facts/ec2-tags.js';

const ID = 'lb-subnets';
const PUBLIC_ROLE = 'kubernetes.io/role/elb';
const INTERNAL_ROLE = 'kubernetes.io/role/internal-elb';
const INTERNAL_ANNOTATION = 'service.beta.kubernetes.io/aws-load-balancer-internal';

/** Services the CCM reconciles: not handed to another controller by class or by the LB controller's type. */
export function isCcmLoadBalancer(s: LoadBalancerServiceFacts): boolean {
  if (s.loadBalancerClass) return false;
  const type = s.annotations['service.beta.kubernetes.io/aws-load-balancer-type'];
  return type !== 'external' && type !== 'nlb-ip';
}

export function checkLbSubnets(ctx: CheckContext): CheckResult {
  const services = ctx.snapshot.kube.loadBalancerServices;
  if (services.state === 'unavailable') return skip(ID, services.reason);
  const handled = services.value.filter(isCcmLoadBalancer);
  if (handled.length === 0) return skip(ID, 'the cluster has no LoadBalancer Services the CCM manages');
  const reason = awsSkipReason(ctx);
  if (reason || !ctx.nodeInstances || ctx.snapshot.aws.state !== 'ok')
    return skip(ID, reason ?? 'no instances');
  const aws = ctx.snapshot.aws.value;
  if (aws.subnets.state === 'unavailable') return skip(ID, aws.subnets.reason);

  const instances = ctx.nodeInstances.map((ni) => ni.instance).filter((i) => i !== undefined);
  const clusterId = ctx.options.clusterId ?? dominantClusterId(instances.map((i) => i.tags));
  const zones = [...new Set(instances.map((i) => i.availabilityZone))].sort();
  const vpcs = new Set(instances.map((i) => i.vpcId).filter((v) => v !== undefined));
  const usable = aws.subnets.value.filter((s) => vpcs.has(s.vpcId) && usableBy(s, clusterId));
  const roles = new Set<string>();
  for (const s of handled) roles.add(isInternal(s) ? INTERNAL_ROLE : PUBLIC_ROLE);

  const fails: string[] = [];
  const warns: string[] = [];
  const resources: ResourceRef[] = [];
  const create: { resourceId: string; key: string; value: string }[] = [];
  const share: SubnetFacts[] = [];
  for (const role of [...roles].sort()) {
    const missing = zones.filter((z) => !usable.some((s) => s.availabilityZone === z && role in s.tags));
    if (missing.length === 0) continue;
    // Role-tagged subnets there that findELBSubnets skips because another cluster's tag is on them.
    const foreign = aws.subnets.value.filter(
      (s) =>
        vpcs.has(s.vpcId) &&
        missing.includes(s.availabilityZone) &&
        role in s.tags &&
        !usableBy(s, clusterId),
    );
    const others = [...new Set(foreign.flatMap(otherClusters))].sort();
    const line =
      foreign.length > 0
        ? `no subnet of this cluster tagged ${role} in ${missing.join(', ')}: ${foreign.map((s) => `${s.subnetId} (${s.availabilityZone})`).join(', ')} ${foreign.length === 1 ? 'carries' : 'carry'} the role tag but ${foreign.length === 1 ? 'belongs' : 'belong'} to cluster ${others.join(', ')} (${others.map((o) => `${CLUSTER_TAG_PREFIX}${o}`).join(', ')}), so the CCM does not use ${foreign.length === 1 ? 'it' : 'them'} for ${clusterId ? `cluster ${clusterId}` : 'this cluster'}`
        : `no subnet tagged ${role} in ${missing.join(', ')}`;
    (missing.length === zones.length ? fails : warns).push(line);
    share.push(...foreign.filter((s) => !share.includes(s)));
    for (const zone of missing) {
      const candidate = pickSubnet(
        usable,
        zone,
        instances.map((i) => i.subnetId),
      );
      if (candidate) {
        create.push({ resourceId: candidate.subnetId, key: role, value: '1' });
        resources.push({ kind: 'Subnet', name: candidate.subnetId });
      }
    }
  }
  const lbProblem = checkLoadBalancersExist(ctx, handled);
  fails.push(...lbProblem.fails);
  warns.push(...lbProblem.warns);
  resources.push(...lbProblem.resources);

  const details = [...fails, ...warns, `zones of the nodes: ${zones.join(', ')}`];
  if (fails.length + warns.length === 0) {
    return pass(
      ID,
      `${plural(handled.length, 'LoadBalancer Service')}: role-tagged subnets in every zone of the nodes (${zones.join(', ')}); every load balancer exists`,
      { details },
    );
  }
  const fixes: Fix[] = [];
  if (share.length > 0) {
    const key = clusterTagKey(clusterId ?? '<cluster-id>');
    const changes = groupTagChanges(share.map((s) => ({ resourceId: s.subnetId, key, value: 'shared' })));
    fixes.push({
      type: 'ec2-tags',
      description: `if those subnets may serve both clusters, tag them for this one too (${key}=shared): the CCM uses a subnet tagged for its own cluster even when another cluster's tag is on it`,
      create: changes,
      remove: [],
      commands: tagCommands(aws.region, changes, []),
    });
  }
  if (create.length > 0) {
    const changes = groupTagChanges(create);
    fixes.push({
      type: 'ec2-tags',
      description: `${share.length > 0 ? 'or keep the clusters apart: ' : ''}tag one subnet per zone for the load balancers (a public subnet for kubernetes.io/role/elb, a private one for internal-elb)`,
      create: changes,
      remove: [],
      commands: tagCommands(aws.region, changes, []),
    });
  }
  if (lbProblem.gone.length > 0) {
    fixes.push({
      type: 'manual',
      description:
        'give each Service whose load balancer is gone a new one now, with the in-tree provider, and move its clients to the new address: the CCM would otherwise create it during the migration',
      steps: lbProblem.gone.flatMap((s) => [
        `kubectl -n ${s.namespace} describe service ${s.name}   # the events say why the load balancer went away`,
        `kubectl -n ${s.namespace} get service ${s.name} -o yaml > ${s.name}.yaml; kubectl -n ${s.namespace} delete service ${s.name}; kubectl apply -f ${s.name}.yaml`,
        `point DNS for ${s.namespace}/${s.name} at: kubectl -n ${s.namespace} get service ${s.name} -o jsonpath='{.status.loadBalancer.ingress[0].hostname}'`,
      ]),
    });
  }
  return fails.length > 0
    ? fail(ID, fails[0]!, fixes, { resources, details })
    : warn(ID, warns[0]!, fixes, { resources, details });
}

function isInternal(s: LoadBalancerServiceFacts): boolean {
  const v = s.annotations[INTERNAL_ANNOTATION];
  return v !== undefined && v !== 'false';
}

/** The other clusters a subnet is tagged for. */
function otherClusters(s: SubnetFacts): string[] {
  return Object.keys(s.tags)
    .filter((k) => k.startsWith(CLUSTER_TAG_PREFIX))
    .map((k) => k.slice(CLUSTER_TAG_PREFIX.length));
}

/**
 * A subnet tagged for another cluster only is not used for this one (cloud-provider-aws findSubnets:
 * hasClusterTag, else hasNoClusterPrefixTag).
 */
function usableBy(s: SubnetFacts, clusterId: string | undefined): boolean {
  const clusterKeys = Object.keys(s.tags).filter((k) => k.startsWith(CLUSTER_TAG_PREFIX));
  return (
    clusterKeys.length === 0 || (clusterId !== undefined && clusterKeys.includes(clusterTagKey(clusterId)))
  );
}

function pickSubnet(
  subnets: readonly SubnetFacts[],
  zone: string,
  nodeSubnets: readonly (string | undefined)[],
): SubnetFacts | undefined {
  const inZone = subnets
    .filter((s) => s.availabilityZone === zone)
    .sort((a, b) => a.subnetId.localeCompare(b.subnetId));
  return inZone.find((s) => nodeSubnets.includes(s.subnetId)) ?? inZone[0];
}

function checkLoadBalancersExist(
  ctx: CheckContext,
  services: readonly LoadBalancerServiceFacts[],
): { fails: string[]; warns: string[]; resources: ResourceRef[]; gone: LoadBalancerServiceFacts[] } {
  const out = {
    fails: [] as string[],
    warns: [] as string[],
    resources: [] as ResourceRef[],
    gone: [] as LoadBalancerServiceFacts[],
  };
  const withHost = services.filter((s) => s.ingressHostnames.length > 0);
  if (withHost.length === 0) return out;
  const lbs = ctx.snapshot.aws.state === 'ok' ? ctx.snapshot.aws.value.loadBalancers : undefined;
  if (!lbs || lbs.state === 'unavailable') {
    out.warns.push(`load balancers not verified: ${lbs?.state === 'unavailable' ? lbs.reason : 'not read'}`);
    return out;
  }
  const dns = new Set(lbs.value.map((lb) => lb.dnsName.toLowerCase()));
  for (const s of withHost) {
    for (const host of s.ingressHostnames) {
      if (!dns.has(host.toLowerCase())) {
        out.fails.push(`Service ${s.namespace}/${s.name}: load balancer ${host} does not exist`);
        out.resources.push({ kind: 'Service', name: s.name, namespace: s.namespace });
        if (!out.gone.includes(s)) out.gone.push(s);
      }
    }
  }
  return out;
}
