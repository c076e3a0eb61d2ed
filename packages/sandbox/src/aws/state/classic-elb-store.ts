import { AwsApiError } from '../protocol/aws-api-error.js';
import type { Ec2Store } from './ec2-store.js';
import type { Mutable, TagMap } from './ec2-types.js';
import type { IdGenerator } from './ids.js';
import { tagMap } from './network-store.js';

export interface ClassicListener {
  readonly protocol: string;
  readonly loadBalancerPort: number;
  readonly instanceProtocol: string;
  readonly instancePort: number;
  readonly sslCertificateId?: string | undefined;
}

export interface ClassicHealthCheck {
  readonly target: string;
  readonly interval: number;
  readonly timeout: number;
  readonly unhealthyThreshold: number;
  readonly healthyThreshold: number;
}

export interface ClassicAttributes {
  readonly crossZoneLoadBalancing: boolean;
  readonly accessLog: {
    readonly enabled: boolean;
    readonly s3BucketName?: string | undefined;
    readonly emitInterval?: number | undefined;
    readonly s3BucketPrefix?: string | undefined;
  };
  readonly connectionDraining: { readonly enabled: boolean; readonly timeout: number };
  readonly idleTimeout: number;
  readonly additional: ReadonlyMap<string, string>;
}

export type ClassicInstanceState = 'InService' | 'OutOfService' | 'Unknown';

export interface ClassicLoadBalancer {
  readonly name: string;
  readonly seq: number;
  readonly dnsName: string;
  readonly canonicalHostedZoneNameId: string;
  readonly createdTime: number;
  readonly scheme: 'internet-facing' | 'internal';
  readonly vpcId: string | undefined;
  readonly subnetIds: readonly string[];
  readonly availabilityZones: readonly string[];
  readonly securityGroupIds: readonly string[];
  readonly instanceIds: readonly string[];
  readonly listeners: readonly ClassicListener[];
  readonly healthCheck: ClassicHealthCheck;
  readonly attributes: ClassicAttributes;
  readonly tags: TagMap;
  /** Health a scenario forced on an instance; otherwise health follows the instance's state. */
  readonly healthOverrides: ReadonlyMap<string, ClassicInstanceState>;
}

export interface ClassicLoadBalancerSpec {
  readonly name: string;
  readonly scheme?: 'internet-facing' | 'internal' | undefined;
  readonly listeners?: readonly ClassicListener[] | undefined;
  readonly subnetIds?: readonly string[] | undefined;
  readonly availabilityZones?: readonly string[] | undefined;
  readonly securityGroupIds?: readonly string[] | undefined;
  readonly tags?: Readonly<Record<string, string>> | undefined;
  /** Seeds only: the DNS name a recorded account's load balancer had (`uproot snapshot`); generated otherwise. */
  readonly dnsName?: string | undefined;
}

export interface InstanceHealth {
  readonly instanceId: string;
  readonly state: ClassicInstanceState;
  readonly reasonCode: string;
  readonly description: string;
}

/** us-east-1's hosted zone for classic and application load balancers. */
const HOSTED_ZONES: Readonly<Record<string, string>> = {
  'us-east-1': 'Z35SXDOTRQ7X7K',
  'us-west-2': 'Z1H1FL5HABSF5',
};

export function notFound(name: string): AwsApiError {
  return new AwsApiError('LoadBalancerNotFound', `There is no ACTIVE Load Balancer named '${name}'`);
}

/** Classic load balancers (ELB 2012-06-01), as the in-tree provider and the CCM create for type=LoadBalancer. */
export class ClassicElbStore {
  private readonly balancers = new Map<string, ClassicLoadBalancer>();

  constructor(
    private readonly ids: IdGenerator,
    private readonly ec2: Ec2Store,
    private readonly now: () => number,
  ) {}

  list(): ClassicLoadBalancer[] {
    return [...this.balancers.values()];
  }

  get(name: string): ClassicLoadBalancer | undefined {
    return this.balancers.get(name.toLowerCase());
  }

  require(name: string): ClassicLoadBalancer {
    const lb = this.get(name);
    if (!lb) throw notFound(name);
    return lb;
  }

  /** Creates a load balancer; calling again with the same name returns the existing one, as AWS does. */
  create(spec: ClassicLoadBalancerSpec): ClassicLoadBalancer {
    const existing = this.get(spec.name);
    if (existing) return existing;
    const subnetIds = spec.subnetIds ?? [];
    const subnets = subnetIds.map((id) => this.ec2.network.requireSubnet(id));
    for (const g of spec.securityGroupIds ?? []) this.ec2.securityGroups.require(g);
    if (subnets.length === 0 && (spec.availabilityZones ?? []).length === 0) {
      throw new AwsApiError('ValidationError', 'Either AvailabilityZones or SubnetIds must be specified');
    }
    const scheme = spec.scheme ?? 'internet-facing';
    const digits = this.ids.chars('elb-dns', 10, '0123456789');
    const prefix = scheme === 'internal' ? 'internal-' : '';
    const lb: ClassicLoadBalancer = {
      name: spec.name,
      seq: this.ids.nextSeq(),
      dnsName: spec.dnsName ?? `${prefix}${spec.name}-${digits}.${this.ec2.region}.elb.amazonaws.com`,
      canonicalHostedZoneNameId: HOSTED_ZONES[this.ec2.region] ?? 'Z3DZXE0Q79N41H',
      createdTime: this.now(),
      scheme,
      vpcId: subnets[0]?.vpcId,
      subnetIds: [...subnetIds],
      availabilityZones:
        subnets.length > 0
          ? [...new Set(subnets.map((s) => s.availabilityZone))]
          : [...(spec.availabilityZones ?? [])],
      securityGroupIds: [...(spec.securityGroupIds ?? [])],
      instanceIds: [],
      listeners: [],
      healthCheck: {
        target: 'TCP:80',
        interval: 30,
        timeout: 5,
        unhealthyThreshold: 2,
        healthyThreshold: 10,
      },
      attributes: {
        crossZoneLoadBalancing: false,
        accessLog: { enabled: false },
        connectionDraining: { enabled: false, timeout: 300 },
        idleTimeout: 60,
        additional: new Map(),
      },
      tags: tagMap(spec.tags),
      healthOverrides: new Map(),
    };
    this.balancers.set(spec.name.toLowerCase(), lb);
    this.createListeners(spec.name, spec.listeners ?? []);
    return lb;
  }

  /** Deleting a load balancer that does not exist succeeds, as on AWS. */
  delete(name: string): void {
    this.balancers.delete(name.toLowerCase());
  }

  createListeners(name: string, listeners: readonly ClassicListener[]): void {
    const lb = this.require(name) as Mutable<ClassicLoadBalancer>;
    const next = [...lb.listeners];
    for (const l of listeners) {
      const clash = next.find((x) => x.loadBalancerPort === l.loadBalancerPort);
      if (clash) {
        const same =
          clash.protocol === l.protocol &&
          clash.instancePort === l.instancePort &&
          clash.instanceProtocol === l.instanceProtocol;
        if (same) continue;
        throw new AwsApiError(
          'DuplicateListener',
          `A listener already exists for ${name} with LoadBalancerPort ${l.loadBalancerPort}, but with a different InstancePort, Protocol, or SSLCertificateId`,
        );
      }
      next.push(l);
    }
    lb.listeners = next;
  }

  deleteListeners(name: string, ports: readonly number[]): void {
    const lb = this.require(name) as Mutable<ClassicLoadBalancer>;
    lb.listeners = lb.listeners.filter((l) => !ports.includes(l.loadBalancerPort));
  }

  /** Registers instances (already registered ones are fine) and returns every registered instance. */
  register(name: string, instanceIds: readonly string[]): readonly string[] {
    const lb = this.require(name) as Mutable<ClassicLoadBalancer>;
    for (const id of instanceIds) {
      if (!this.ec2.instances.get(id)) {
        throw new AwsApiError(
          'InvalidInstance',
          `EC2 instance ${id} is not valid. It may not exist, or may be terminated.`,
        );
      }
    }
    lb.instanceIds = [...new Set([...lb.instanceIds, ...instanceIds])];
    return lb.instanceIds;
  }

  deregister(name: string, instanceIds: readonly string[]): readonly string[] {
    const lb = this.require(name) as Mutable<ClassicLoadBalancer>;
    for (const id of instanceIds) {
      if (!lb.instanceIds.includes(id)) {
        throw new AwsApiError(
          'InvalidInstance',
          `The instance ${id} is not registered with load balancer ${name}.`,
        );
      }
    }
    lb.instanceIds = lb.instanceIds.filter((id) => !instanceIds.includes(id));
    return lb.instanceIds;
  }

  configureHealthCheck(name: string, check: ClassicHealthCheck): ClassicHealthCheck {
    const lb = this.require(name) as Mutable<ClassicLoadBalancer>;
    lb.healthCheck = check;
    return check;
  }

  modifyAttributes(
    name: string,
    change: Partial<Omit<ClassicAttributes, 'additional'>> & {
      additional?: Readonly<Record<string, string>>;
    },
  ): ClassicAttributes {
    const lb = this.require(name) as Mutable<ClassicLoadBalancer>;
    const current = lb.attributes;
    lb.attributes = {
      crossZoneLoadBalancing: change.crossZoneLoadBalancing ?? current.crossZoneLoadBalancing,
      accessLog: change.accessLog ?? current.accessLog,
      connectionDraining: change.connectionDraining ?? current.connectionDraining,
      idleTimeout: change.idleTimeout ?? current.idleTimeout,
      additional: new Map([...current.additional, ...Object.entries(change.additional ?? {})]),
    };
    return lb.attributes;
  }

  applySecurityGroups(name: string, groupIds: readonly string[]): readonly string[] {
    const lb = this.require(name) as Mutable<ClassicLoadBalancer>;
    for (const g of groupIds) this.ec2.securityGroups.require(g);
    lb.securityGroupIds = [...groupIds];
    return lb.securityGroupIds;
  }

  setSubnets(name: string, subnetIds: readonly string[]): readonly string[] {
    const lb = this.require(name) as Mutable<ClassicLoadBalancer>;
    const subnets = subnetIds.map((id) => this.ec2.network.requireSubnet(id));
    lb.subnetIds = [...subnetIds];
    lb.availabilityZones = [...new Set(subnets.map((s) => s.availabilityZone))];
    return lb.subnetIds;
  }

  /** Forces an instance's health (or clears the override with undefined). */
  setInstanceHealth(name: string, instanceId: string, state: ClassicInstanceState | undefined): void {
    const overrides = this.require(name).healthOverrides as Map<string, ClassicInstanceState>;
    if (state === undefined) overrides.delete(instanceId);
    else overrides.set(instanceId, state);
  }

  /** Health of the registered instances (or the named ones, which must be registered). */
  instanceHealth(name: string, instanceIds?: readonly string[]): InstanceHealth[] {
    const lb = this.require(name);
    const ids = instanceIds && instanceIds.length > 0 ? instanceIds : lb.instanceIds;
    return ids.map((id) => {
      if (!lb.instanceIds.includes(id)) {
        throw new AwsApiError('InvalidInstance', `Could not find EC2 instance ${id}.`);
      }
      const override = lb.healthOverrides.get(id);
      const instance = this.ec2.instances.get(id);
      if (override !== undefined) {
        return {
          instanceId: id,
          state: override,
          reasonCode: override === 'InService' ? 'N/A' : 'Instance',
          description:
            override === 'InService'
              ? 'N/A'
              : 'Instance has failed at least the UnhealthyThreshold number of health checks consecutively.',
        };
      }
      if (instance?.state === 'running')
        return { instanceId: id, state: 'InService', reasonCode: 'N/A', description: 'N/A' };
      return {
        instanceId: id,
        state: 'OutOfService',
        reasonCode: 'Instance',
        description: `Instance is in ${instance?.state ?? 'terminated'} state.`,
      };
    });
  }
}
