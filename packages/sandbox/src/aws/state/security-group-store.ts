import { AwsApiError } from '../protocol/aws-api-error.js';
import type { IdGenerator } from './ids.js';
import type { Mutable, SecurityGroup, SecurityGroupRule } from './ec2-types.js';
import { tagMap } from './network-store.js';

/** One permission as the API sends it: a protocol and port range with any number of sources. */
export interface IpPermissionSpec {
  readonly protocol: string;
  readonly fromPort?: number | undefined;
  readonly toPort?: number | undefined;
  readonly cidrs?: readonly { cidr: string; description?: string | undefined }[];
  readonly ipv6Cidrs?: readonly { cidr: string; description?: string | undefined }[];
  readonly groups?: readonly { groupId: string; description?: string | undefined }[];
}

export interface SecurityGroupSpec {
  readonly id?: string | undefined;
  readonly name: string;
  readonly description: string;
  readonly vpcId: string;
  readonly tags?: Readonly<Record<string, string>>;
}

const PROTOCOL_NAMES: Readonly<Record<string, string>> = { '6': 'tcp', '17': 'udp', '1': 'icmp', all: '-1' };

/** `TCP`, `6` → `tcp`; `all` → `-1`. */
export function normaliseProtocol(protocol: string): string {
  const lower = protocol.toLowerCase();
  return PROTOCOL_NAMES[lower] ?? lower;
}

type RuleKey = Omit<SecurityGroupRule, 'id' | 'description'>;

function sameRule(a: RuleKey, b: RuleKey): boolean {
  return (
    a.isEgress === b.isEgress &&
    a.protocol === b.protocol &&
    (a.protocol === '-1' || (a.fromPort === b.fromPort && a.toPort === b.toPort)) &&
    a.cidrIpv4 === b.cidrIpv4 &&
    a.cidrIpv6 === b.cidrIpv6 &&
    a.referencedGroupId === b.referencedGroupId
  );
}

function describeRule(r: RuleKey): string {
  const peer = r.cidrIpv4 ?? r.cidrIpv6 ?? r.referencedGroupId ?? '?';
  const protocol = r.protocol === '-1' ? 'ALL' : r.protocol.toUpperCase();
  return `peer: ${peer}, ${protocol}, from port: ${r.fromPort ?? -1}, to port: ${r.toPort ?? -1}, ALLOW`;
}

/** Security groups with flat rules; the API view groups them into IpPermissions. */
export class SecurityGroupStore {
  readonly groups = new Map<string, SecurityGroup>();

  constructor(
    private readonly ids: IdGenerator,
    private readonly touch: () => void = () => {},
  ) {}

  get(id: string): SecurityGroup | undefined {
    return this.groups.get(id);
  }

  require(id: string): SecurityGroup {
    const group = this.groups.get(id);
    if (!group) throw new AwsApiError('InvalidGroup.NotFound', `The security group '${id}' does not exist`);
    return group;
  }

  findByName(vpcId: string, name: string): SecurityGroup | undefined {
    for (const g of this.groups.values()) if (g.vpcId === vpcId && g.name === name) return g;
    return undefined;
  }

  /** The group an instance gets when none is named: the VPC's `default`, else its first group. */
  defaultFor(vpcId: string): SecurityGroup | undefined {
    let first: SecurityGroup | undefined;
    for (const g of this.groups.values()) {
      if (g.vpcId !== vpcId) continue;
      if (g.name === 'default') return g;
      first ??= g;
    }
    return first;
  }

  create(spec: SecurityGroupSpec, options: { defaultEgress?: boolean } = {}): SecurityGroup {
    if (this.findByName(spec.vpcId, spec.name)) {
      throw new AwsApiError(
        'InvalidGroup.Duplicate',
        `The security group '${spec.name}' already exists for VPC '${spec.vpcId}'`,
      );
    }
    let id = spec.id;
    while (id === undefined || (spec.id === undefined && this.groups.has(id))) id = this.ids.ec2Id('sg');
    const group: SecurityGroup = {
      id,
      seq: this.ids.nextSeq(),
      name: spec.name,
      description: spec.description,
      vpcId: spec.vpcId,
      rules: [],
      tags: tagMap(spec.tags),
    };
    this.groups.set(id, group);
    this.touch();
    if (options.defaultEgress ?? true) {
      this.authorize(id, true, [{ protocol: '-1', cidrs: [{ cidr: '0.0.0.0/0' }] }]);
    }
    return group;
  }

  /** Adds rules; a rule that already exists fails the whole call with `InvalidPermission.Duplicate`. */
  authorize(groupId: string, egress: boolean, permissions: readonly IpPermissionSpec[]): SecurityGroupRule[] {
    const group = this.require(groupId) as Mutable<SecurityGroup>;
    const added: SecurityGroupRule[] = [];
    for (const key of this.expand(egress, permissions)) {
      if (group.rules.some((r) => sameRule(r, key)) || added.some((r) => sameRule(r, key))) {
        throw new AwsApiError(
          'InvalidPermission.Duplicate',
          `the specified rule "${describeRule(key)}" already exists`,
        );
      }
      added.push({ ...key, id: this.ids.ec2Id('sgr') });
    }
    group.rules = [...group.rules, ...added];
    this.touch();
    return added;
  }

  /**
   * Removes rules. Rules that do not exist come back as `unknown`; when none of them existed the call fails
   * with `InvalidPermission.NotFound`, as AWS does.
   */
  revoke(
    groupId: string,
    egress: boolean,
    permissions: readonly IpPermissionSpec[],
  ): { revoked: SecurityGroupRule[]; unknown: IpPermissionSpec[] } {
    const group = this.require(groupId) as Mutable<SecurityGroup>;
    const revoked: SecurityGroupRule[] = [];
    const unknown: IpPermissionSpec[] = [];
    for (const permission of permissions) {
      const keys = this.expand(egress, [permission]);
      const found = keys.map((k) => group.rules.find((r) => sameRule(r, k)));
      if (found.every((f) => f === undefined)) unknown.push(permission);
      for (const f of found) if (f && !revoked.includes(f)) revoked.push(f);
    }
    if (revoked.length === 0) {
      throw new AwsApiError(
        'InvalidPermission.NotFound',
        'The specified rule does not exist in this security group.',
      );
    }
    group.rules = group.rules.filter((r) => !revoked.includes(r));
    this.touch();
    return { revoked, unknown };
  }

  /** Deletes a group that nothing uses. `inUseBy` says which instance or group still refers to it. */
  delete(groupId: string, inUseBy: string | undefined): void {
    this.require(groupId);
    const referencing = [...this.groups.values()].find(
      (g) => g.id !== groupId && g.rules.some((r) => r.referencedGroupId === groupId),
    );
    const dependent = inUseBy ?? referencing?.id;
    if (dependent !== undefined) {
      throw new AwsApiError('DependencyViolation', `resource ${groupId} has a dependent object`);
    }
    this.groups.delete(groupId);
    this.touch();
  }

  private expand(
    egress: boolean,
    permissions: readonly IpPermissionSpec[],
  ): (RuleKey & { description?: string })[] {
    const out: (RuleKey & { description?: string })[] = [];
    for (const p of permissions) {
      const protocol = normaliseProtocol(p.protocol);
      const ports = protocol === '-1' ? {} : { fromPort: p.fromPort, toPort: p.toPort };
      const base = { isEgress: egress, protocol, ...ports };
      for (const c of p.cidrs ?? [])
        out.push({ ...base, cidrIpv4: c.cidr, ...(c.description ? { description: c.description } : {}) });
      for (const c of p.ipv6Cidrs ?? [])
        out.push({ ...base, cidrIpv6: c.cidr, ...(c.description ? { description: c.description } : {}) });
      for (const g of p.groups ?? []) {
        this.require(g.groupId);
        out.push({
          ...base,
          referencedGroupId: g.groupId,
          ...(g.description ? { description: g.description } : {}),
        });
      }
    }
    return out;
  }
}
