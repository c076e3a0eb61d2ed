import { AwsApiError } from '../protocol/aws-api-error.js';
import type { Ec2Store } from './ec2-store.js';
import type { Mutable, TagMap } from './ec2-types.js';
import {
  ALB_ATTRIBUTES,
  ALB_ZONES,
  NLB_ATTRIBUTES,
  NLB_ZONES,
  TARGET_GROUP_ATTRIBUTES,
  lbNotFound,
  listenerNotFound,
  targetGroupNotFound,
  type ListenerAction,
  type ListenerV2,
  type LoadBalancerType,
  type LoadBalancerV2,
  type Target,
  type TargetGroup,
  type TargetGroupHealthCheck,
  type TargetHealthDescription,
  type TargetHealthState,
} from './elbv2-types.js';
import type { IdGenerator } from './ids.js';
import { tagMap } from './network-store.js';
import { describeTargetHealth } from './target-health.js';

export * from './elbv2-types.js';

/** Network and application load balancers, target groups and listeners (ELB 2015-12-01). */
export class Elbv2Store {
  private readonly balancers = new Map<string, LoadBalancerV2>();
  private readonly groups = new Map<string, TargetGroup>();
  private readonly listenersByArn = new Map<string, ListenerV2>();

  constructor(
    private readonly ids: IdGenerator,
    private readonly ec2: Ec2Store,
    private readonly now: () => number,
  ) {}

  private arnPrefix(): string {
    return `arn:aws:elasticloadbalancing:${this.ec2.region}:${this.ec2.accountId}`;
  }

  loadBalancers(): LoadBalancerV2[] {
    return [...this.balancers.values()];
  }

  loadBalancer(arn: string): LoadBalancerV2 | undefined {
    return this.balancers.get(arn);
  }

  loadBalancerByName(name: string): LoadBalancerV2 | undefined {
    for (const lb of this.balancers.values()) if (lb.name.toLowerCase() === name.toLowerCase()) return lb;
    return undefined;
  }

  requireLoadBalancer(arn: string): LoadBalancerV2 {
    const lb = this.balancers.get(arn);
    if (!lb) throw lbNotFound();
    return lb;
  }

  createLoadBalancer(spec: {
    name: string;
    /** Seeds only: the DNS name a recorded account's load balancer had (`uproot snapshot`). */
    dnsName?: string | undefined;
    type?: LoadBalancerType | undefined;
    scheme?: 'internet-facing' | 'internal' | undefined;
    subnetIds: readonly string[];
    securityGroupIds?: readonly string[] | undefined;
    ipAddressType?: string | undefined;
    tags?: Readonly<Record<string, string>> | undefined;
  }): LoadBalancerV2 {
    const type = spec.type ?? 'application';
    const scheme = spec.scheme ?? 'internet-facing';
    const existing = this.loadBalancerByName(spec.name);
    if (existing) {
      if (existing.type === type && existing.scheme === scheme) return existing;
      throw new AwsApiError(
        'DuplicateLoadBalancerName',
        `A load balancer with the same name '${spec.name}' exists, but with different settings`,
      );
    }
    if (spec.subnetIds.length === 0)
      throw new AwsApiError('ValidationError', 'At least one subnet must be specified');
    const subnets = spec.subnetIds.map((id) => this.ec2.network.requireSubnet(id));
    if (new Set(subnets.map((s) => s.availabilityZone)).size !== subnets.length) {
      throw new AwsApiError(
        'InvalidConfigurationRequest',
        'A load balancer cannot be attached to multiple subnets in the same Availability Zone',
      );
    }
    for (const g of spec.securityGroupIds ?? []) this.ec2.securityGroups.require(g);
    const kind = type === 'network' ? 'net' : 'app';
    const hex = this.ids.hex('elbv2', 16);
    const prefix = scheme === 'internal' ? 'internal-' : '';
    const region = this.ec2.region;
    const dnsName =
      spec.dnsName ??
      (type === 'network'
        ? `${prefix}${spec.name}-${hex}.elb.${region}.amazonaws.com`
        : `${prefix}${spec.name}-${this.ids.chars('alb-dns', 10, '0123456789')}.${region}.elb.amazonaws.com`);
    const lb: LoadBalancerV2 = {
      arn: `${this.arnPrefix()}:loadbalancer/${kind}/${spec.name}/${hex}`,
      name: spec.name,
      seq: this.ids.nextSeq(),
      type,
      scheme,
      dnsName,
      canonicalHostedZoneId: (type === 'network' ? NLB_ZONES : ALB_ZONES)[region] ?? 'Z215JYRZR1TBD5',
      createdTime: this.now(),
      vpcId: subnets[0]!.vpcId,
      subnets: subnets.map((s) => ({ subnetId: s.id, zoneName: s.availabilityZone })),
      securityGroupIds: [...(spec.securityGroupIds ?? [])],
      ipAddressType: spec.ipAddressType ?? 'ipv4',
      attributes: new Map(type === 'network' ? NLB_ATTRIBUTES : ALB_ATTRIBUTES),
      tags: tagMap(spec.tags),
    };
    this.balancers.set(lb.arn, lb);
    return lb;
  }

  /** Deletes the load balancer and its listeners; an unknown ARN succeeds, as on AWS. */
  deleteLoadBalancer(arn: string): void {
    if (!this.balancers.delete(arn)) return;
    for (const l of [...this.listenersByArn.values()])
      if (l.loadBalancerArn === arn) this.listenersByArn.delete(l.arn);
  }

  setSecurityGroups(arn: string, groupIds: readonly string[]): readonly string[] {
    const lb = this.requireLoadBalancer(arn) as Mutable<LoadBalancerV2>;
    for (const g of groupIds) this.ec2.securityGroups.require(g);
    lb.securityGroupIds = [...groupIds];
    return lb.securityGroupIds;
  }

  modifyAttributes(
    map: Map<string, string>,
    changes: readonly { key: string; value: string }[],
    what: string,
  ): void {
    for (const { key } of changes) {
      if (!map.has(key))
        throw new AwsApiError('ValidationError', `${what} attribute key '${key}' is not recognized`);
    }
    for (const { key, value } of changes) map.set(key, value);
  }

  targetGroups(): TargetGroup[] {
    return [...this.groups.values()];
  }

  targetGroup(arn: string): TargetGroup | undefined {
    return this.groups.get(arn);
  }

  targetGroupByName(name: string): TargetGroup | undefined {
    for (const g of this.groups.values()) if (g.name.toLowerCase() === name.toLowerCase()) return g;
    return undefined;
  }

  requireTargetGroup(arn: string): TargetGroup {
    const group = this.groups.get(arn);
    if (!group) throw targetGroupNotFound();
    return group;
  }

  createTargetGroup(spec: {
    name: string;
    protocol?: string | undefined;
    port?: number | undefined;
    vpcId?: string | undefined;
    targetType?: string | undefined;
    healthCheck?: Partial<TargetGroupHealthCheck> | undefined;
    tags?: Readonly<Record<string, string>> | undefined;
  }): TargetGroup {
    const protocol = spec.protocol ?? 'TCP';
    const existing = this.targetGroupByName(spec.name);
    if (existing) {
      if (existing.protocol === protocol && existing.port === spec.port) return existing;
      throw new AwsApiError(
        'DuplicateTargetGroupName',
        `A target group with the same name '${spec.name}' exists, but with different settings`,
      );
    }
    const targetType = spec.targetType ?? 'instance';
    if (targetType !== 'lambda' && (spec.port === undefined || spec.vpcId === undefined)) {
      throw new AwsApiError('ValidationError', 'A port and a VPC ID must be specified for this target type');
    }
    if (spec.vpcId !== undefined) this.ec2.network.requireVpc(spec.vpcId);
    const http = protocol === 'HTTP' || protocol === 'HTTPS';
    const group: TargetGroup = {
      arn: `${this.arnPrefix()}:targetgroup/${spec.name}/${this.ids.hex('targetgroup', 16)}`,
      name: spec.name,
      seq: this.ids.nextSeq(),
      protocol,
      port: spec.port ?? 0,
      vpcId: spec.vpcId ?? '',
      targetType,
      ipAddressType: 'ipv4',
      healthCheck: {
        protocol: http ? 'HTTP' : 'TCP',
        port: 'traffic-port',
        enabled: true,
        intervalSeconds: 30,
        timeoutSeconds: http ? 5 : 10,
        healthyThresholdCount: 5,
        unhealthyThresholdCount: 2,
        ...(http ? { path: '/', matcher: '200' } : {}),
        ...spec.healthCheck,
      },
      targets: [],
      attributes: new Map(TARGET_GROUP_ATTRIBUTES),
      tags: tagMap(spec.tags),
      healthOverrides: new Map(),
    };
    this.groups.set(group.arn, group);
    return group;
  }

  modifyTargetGroup(arn: string, change: Partial<TargetGroupHealthCheck>): TargetGroup {
    const group = this.requireTargetGroup(arn) as Mutable<TargetGroup>;
    const defined = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
    group.healthCheck = { ...group.healthCheck, ...defined };
    return group;
  }

  /** Fails with ResourceInUse while a listener forwards to the group; an unknown ARN succeeds. */
  deleteTargetGroup(arn: string): void {
    if (!this.groups.has(arn)) return;
    if (
      [...this.listenersByArn.values()].some((l) => l.defaultActions.some((a) => a.targetGroupArn === arn))
    ) {
      throw new AwsApiError(
        'ResourceInUse',
        `Target group '${arn}' is currently in use by a listener or a rule`,
      );
    }
    this.groups.delete(arn);
  }

  /** The load balancers whose listeners forward to a target group. */
  loadBalancerArnsOf(targetGroupArn: string): string[] {
    const arns = new Set<string>();
    for (const l of this.listenersByArn.values()) {
      if (l.defaultActions.some((a) => a.targetGroupArn === targetGroupArn)) arns.add(l.loadBalancerArn);
    }
    return [...arns];
  }

  registerTargets(arn: string, targets: readonly { id: string; port?: number | undefined }[]): void {
    const group = this.requireTargetGroup(arn) as Mutable<TargetGroup>;
    const resolved: Target[] = [];
    for (const t of targets) {
      if (group.targetType === 'instance') {
        const instance = this.ec2.instances.get(t.id);
        if (!instance) {
          throw new AwsApiError('InvalidTarget', `The following targets are not valid instances: '${t.id}'`);
        }
        if (instance.state !== 'running') {
          throw new AwsApiError(
            'InvalidTarget',
            `The following targets are not in a running state and cannot be registered: '${t.id}'`,
          );
        }
      }
      resolved.push({ id: t.id, port: t.port ?? group.port });
    }
    const next = [...group.targets];
    for (const t of resolved) if (!next.some((x) => x.id === t.id && x.port === t.port)) next.push(t);
    group.targets = next;
  }

  deregisterTargets(arn: string, targets: readonly { id: string; port?: number | undefined }[]): void {
    const group = this.requireTargetGroup(arn) as Mutable<TargetGroup>;
    group.targets = group.targets.filter(
      (x) => !targets.some((t) => t.id === x.id && (t.port ?? group.port) === x.port),
    );
  }

  setTargetHealth(arn: string, targetId: string, state: TargetHealthState | undefined): void {
    const overrides = this.requireTargetGroup(arn).healthOverrides as Map<string, TargetHealthState>;
    if (state === undefined) overrides.delete(targetId);
    else overrides.set(targetId, state);
  }

  /** Health as AWS derives it (see target-health.ts), for every registered target or the named ones. */
  targetHealth(
    arn: string,
    wanted?: readonly { id: string; port?: number | undefined }[],
  ): TargetHealthDescription[] {
    const group = this.requireTargetGroup(arn);
    return describeTargetHealth(
      group,
      this.loadBalancerArnsOf(arn).length > 0,
      (id) => this.ec2.instances.get(id),
      wanted,
    );
  }

  listeners(): ListenerV2[] {
    return [...this.listenersByArn.values()];
  }

  listener(arn: string): ListenerV2 | undefined {
    return this.listenersByArn.get(arn);
  }

  requireListener(arn: string): ListenerV2 {
    const l = this.listenersByArn.get(arn);
    if (!l) throw listenerNotFound();
    return l;
  }

  createListener(spec: {
    loadBalancerArn: string;
    port: number;
    protocol: string;
    defaultActions: readonly ListenerAction[];
    sslPolicy?: string | undefined;
    certificateArns?: readonly string[] | undefined;
  }): ListenerV2 {
    const lb = this.requireLoadBalancer(spec.loadBalancerArn);
    const clash = [...this.listenersByArn.values()].find(
      (l) => l.loadBalancerArn === lb.arn && l.port === spec.port,
    );
    if (clash) {
      if (clash.protocol === spec.protocol) return clash;
      throw new AwsApiError(
        'DuplicateListener',
        `A listener already exists on this port for this load balancer '${lb.arn}'`,
      );
    }
    this.checkActions(spec.defaultActions);
    const kind = lb.type === 'network' ? 'net' : 'app';
    const lbHex = lb.arn.split('/').pop()!;
    const listener: ListenerV2 = {
      arn: `${this.arnPrefix()}:listener/${kind}/${lb.name}/${lbHex}/${this.ids.hex('listener', 16)}`,
      seq: this.ids.nextSeq(),
      loadBalancerArn: lb.arn,
      port: spec.port,
      protocol: spec.protocol,
      defaultActions: [...spec.defaultActions],
      sslPolicy: spec.sslPolicy,
      certificateArns: [...(spec.certificateArns ?? [])],
    };
    this.listenersByArn.set(listener.arn, listener);
    return listener;
  }

  modifyListener(
    arn: string,
    change: {
      port?: number | undefined;
      protocol?: string | undefined;
      defaultActions?: readonly ListenerAction[] | undefined;
    },
  ): ListenerV2 {
    const listener = this.requireListener(arn) as Mutable<ListenerV2>;
    if (change.defaultActions) this.checkActions(change.defaultActions);
    if (change.port !== undefined) listener.port = change.port;
    if (change.protocol !== undefined) listener.protocol = change.protocol;
    if (change.defaultActions !== undefined) listener.defaultActions = [...change.defaultActions];
    return listener;
  }

  deleteListener(arn: string): void {
    this.requireListener(arn);
    this.listenersByArn.delete(arn);
  }

  /** Tags of a load balancer or target group by ARN. */
  tagsOf(arn: string): TagMap {
    const owner = this.balancers.get(arn) ?? this.groups.get(arn);
    if (!owner) {
      throw arn.includes(':targetgroup/') ? targetGroupNotFound() : lbNotFound();
    }
    return owner.tags;
  }

  private checkActions(actions: readonly ListenerAction[]): void {
    for (const a of actions) {
      if (a.type === 'forward' && a.targetGroupArn !== undefined) this.requireTargetGroup(a.targetGroupArn);
    }
  }
}
