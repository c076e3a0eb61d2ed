import type { Random, Clock } from 'uproot';
import { startAwsEmulator, type AwsEmulator } from '../../aws/index.js';
import type { Scenario } from '../../scenarios/index.js';
import { metaOf, type KubeObject } from '../kube/kube-types.js';
import type { TwinKube } from '../kube/twin-kube.js';
import {
  buildAwsSeed,
  classicLoadBalancerSeed,
  elbSecurityGroupSeed,
  loadBalancerNameFor,
  planSeedIds,
} from '../layout/aws-seed.js';
import type { ClusterLayout } from '../layout/cluster-layout.js';
import { snapshotAwsSeed } from '../layout/snapshot-layout.js';
import { nodePortsOf, setLoadBalancerHostname } from './cluster-objects.js';

/**
 * Starts the twin's AWS account: the scenario's network, roles and instances, plus one classic ELB per
 * LoadBalancer Service as the in-tree provider created it (named after the Service's uid, tagged for the
 * cluster, every node registered), and writes each ELB's DNS name into its Service's status.
 */
export async function startAwsAccount(options: {
  readonly scenario: Scenario;
  readonly layout: ClusterLayout;
  readonly services: readonly KubeObject[];
  readonly kube: TwinKube;
  readonly clock: Clock;
  readonly idsRandom: Random;
  readonly faultRandom: Random;
}): Promise<AwsEmulator> {
  const { scenario, layout, services } = options;
  const ids = planSeedIds(layout, options.idsRandom);
  const withNodes = layout.instances.length > 0;
  const seed = scenario.snapshot
    ? snapshotAwsSeed(
        scenario,
        scenario.snapshot,
        layout,
        services.map((object) => ({ object, ports: nodePortsOf(object) })),
      )
    : buildAwsSeed(scenario, layout, ids);
  // A recorded account (uproot snapshot) comes as it was, its roles and load balancers included.
  if (!scenario.snapshot && withNodes) {
    const groups = seed.securityGroups as Record<string, unknown>[];
    const lbs: Record<string, unknown>[] = [];
    services.forEach((svc, i) => {
      const meta = metaOf(svc);
      const lbName = loadBalancerNameFor(meta.uid ?? '');
      const sgId = `sg-${(0xe1b0000 + i).toString(16).padStart(17, '0')}`;
      const ports = nodePortsOf(svc);
      const namespace = meta.namespace ?? 'default';
      const serviceName = meta.name ?? '';
      groups.push(
        elbSecurityGroupSeed({
          id: sgId,
          lbName,
          namespace,
          serviceName,
          vpcId: ids.vpcId,
          clusterId: layout.clusterId,
          ports: ports.map((p) => p.port),
        }),
      );
      lbs.push(
        classicLoadBalancerSeed({
          name: lbName,
          namespace,
          serviceName,
          clusterId: layout.clusterId,
          ports,
          subnetIds: ids.subnetIds,
          securityGroupId: sgId,
          instanceIds: layout.instances.map((inst) => inst.instanceId),
        }),
      );
    });
    seed.classicLoadBalancers = lbs;
  } else if (!scenario.snapshot) {
    // The bare account of `empty`: network only.
    seed.roles = [];
    seed.instanceProfiles = [];
    seed.managedPolicies = [];
  }
  const aws = await startAwsEmulator({
    seed: seed as never,
    clock: options.clock,
    random: options.faultRandom,
  });
  if (withNodes) {
    for (const svc of services) {
      const meta = metaOf(svc);
      const name = loadBalancerNameFor(meta.uid ?? '');
      // A replayed snapshot's NLB a Service owns is seeded under the same name (twin/layout/snapshot-layout.ts).
      const lb = aws.state.elb.get(name) ?? aws.state.elbv2.loadBalancerByName(name);
      if (lb) setLoadBalancerHostname(options.kube, meta.namespace ?? 'default', meta.name ?? '', lb.dnsName);
    }
  }
  return aws;
}
