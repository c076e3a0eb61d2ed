import { compileFilters, readFilters } from '../../filters/filter-engine.js';
import { paginate } from '../../paging/page-token.js';
import { AwsApiError, missingParameter } from '../../protocol/aws-api-error.js';
import type { QueryInput } from '../../protocol/query-input.js';
import { escapeXml, xmlElement, type XmlValue } from '../../protocol/xml.js';
import type { AwsState } from '../../state/aws-state.js';
import type { SecurityGroup, SecurityGroupRule } from '../../state/ec2-types.js';
import type { IpPermissionSpec } from '../../state/security-group-store.js';
import type { ActionContext, ActionTable } from '../service-types.js';
import {
  ec2Arn,
  invalidFilter,
  invalidNextToken,
  maxResults,
  tagSetXml,
  tagSpecifications,
} from './ec2-common.js';

/** Groups flat rules by protocol and port range into EC2's IpPermissions. */
function ipPermissions(state: AwsState, rules: readonly SecurityGroupRule[]): XmlValue[] {
  const byKey = new Map<string, { head: SecurityGroupRule; list: SecurityGroupRule[] }>();
  for (const r of rules) {
    const key = `${r.protocol}/${r.fromPort ?? ''}/${r.toPort ?? ''}`;
    const entry = byKey.get(key);
    if (entry) entry.list.push(r);
    else byKey.set(key, { head: r, list: [r] });
  }
  return [...byKey.values()].map(({ head, list }) => ({
    ipProtocol: head.protocol,
    fromPort: head.fromPort,
    toPort: head.toPort,
    groups: list
      .filter((r) => r.referencedGroupId)
      .map((r) => ({ description: r.description, userId: state.accountId, groupId: r.referencedGroupId })),
    ipRanges: list.filter((r) => r.cidrIpv4).map((r) => ({ description: r.description, cidrIp: r.cidrIpv4 })),
    ipv6Ranges: list
      .filter((r) => r.cidrIpv6)
      .map((r) => ({ description: r.description, cidrIpv6: r.cidrIpv6 })),
    prefixListIds: [],
  }));
}

function groupXml(state: AwsState, g: SecurityGroup): string {
  return (
    `<item><ownerId>${state.accountId}</ownerId><groupId>${g.id}</groupId><groupName>${escapeXml(g.name)}</groupName>` +
    `<groupDescription>${escapeXml(g.description)}</groupDescription><vpcId>${g.vpcId}</vpcId>` +
    `<securityGroupArn>${ec2Arn(state.region, state.accountId, 'security-group', g.id)}</securityGroupArn>` +
    xmlElement(
      'ipPermissions',
      ipPermissions(
        state,
        g.rules.filter((r) => !r.isEgress),
      ),
      'item',
    ) +
    xmlElement(
      'ipPermissionsEgress',
      ipPermissions(
        state,
        g.rules.filter((r) => r.isEgress),
      ),
      'item',
    ) +
    `${tagSetXml(g.tags)}</item>`
  );
}

function ruleValues(
  g: SecurityGroup,
  egress: boolean,
  pick: (r: SecurityGroupRule) => string | number | undefined,
): string[] {
  return g.rules
    .filter((r) => r.isEgress === egress)
    .flatMap((r) => {
      const v = pick(r);
      return v === undefined ? [] : [String(v)];
    });
}

function describeSecurityGroups({ state, input }: ActionContext): string {
  const limit = maxResults(input);
  const ids = input.list('GroupId', 'ec2');
  const names = input.list('GroupName', 'ec2');
  const all = state.ec2.listSecurityGroups();
  for (const id of ids) state.ec2.securityGroups.require(id);
  for (const name of names) {
    if (!all.some((g) => g.name === name)) {
      throw new AwsApiError('InvalidGroup.NotFound', `The security group '${name}' does not exist`);
    }
  }
  const matches = compileFilters(
    readFilters(input, 'ec2'),
    {
      tags: (g: SecurityGroup) => g.tags,
      fields: {
        'group-id': (g) => g.id,
        'group-name': (g) => g.name,
        'vpc-id': (g) => g.vpcId,
        description: (g) => g.description,
        'owner-id': () => state.accountId,
        'ip-permission.cidr': (g) => ruleValues(g, false, (r) => r.cidrIpv4),
        'ip-permission.ipv6-cidr': (g) => ruleValues(g, false, (r) => r.cidrIpv6),
        'ip-permission.group-id': (g) => ruleValues(g, false, (r) => r.referencedGroupId),
        'ip-permission.protocol': (g) => ruleValues(g, false, (r) => r.protocol),
        'ip-permission.from-port': (g) => ruleValues(g, false, (r) => r.fromPort),
        'ip-permission.to-port': (g) => ruleValues(g, false, (r) => r.toPort),
        'egress.ip-permission.cidr': (g) => ruleValues(g, true, (r) => r.cidrIpv4),
        'egress.ip-permission.protocol': (g) => ruleValues(g, true, (r) => r.protocol),
      },
    },
    invalidFilter,
  );
  const selected = all.filter(
    (g) =>
      (ids.length === 0 || ids.includes(g.id)) &&
      (names.length === 0 || names.includes(g.name)) &&
      matches(g),
  );
  const page = paginate(selected, (g) => g.seq, {
    listing: 'DescribeSecurityGroups',
    token: input.string('NextToken'),
    limit,
    invalid: invalidNextToken,
  });
  const body = page.items.map((g) => groupXml(state, g)).join('');
  return (
    (body === '' ? '<securityGroupInfo/>' : `<securityGroupInfo>${body}</securityGroupInfo>`) +
    (page.next ? `<nextToken>${page.next}</nextToken>` : '')
  );
}

/** `IpPermissions.N…` or the older flat form (`IpProtocol`, `CidrIp`, `SourceSecurityGroupName`). */
function readPermissions(state: AwsState, input: QueryInput, vpcId: string): IpPermissionSpec[] {
  const structured = input.structs('IpPermissions', 'ec2').map((p) => ({
    protocol: p.requiredString('IpProtocol'),
    fromPort: p.int('FromPort'),
    toPort: p.int('ToPort'),
    cidrs: p
      .structs('IpRanges', 'ec2')
      .map((r) => ({ cidr: r.requiredString('CidrIp'), description: r.string('Description') })),
    ipv6Cidrs: p
      .structs('Ipv6Ranges', 'ec2')
      .map((r) => ({ cidr: r.requiredString('CidrIpv6'), description: r.string('Description') })),
    groups: p.structs('Groups', 'ec2').map((g) => {
      const groupName = g.string('GroupName');
      const groupId =
        g.string('GroupId') ??
        (groupName ? state.ec2.securityGroups.findByName(vpcId, groupName)?.id : undefined);
      if (!groupId)
        throw new AwsApiError(
          'InvalidGroup.NotFound',
          `The security group '${groupName ?? ''}' does not exist`,
        );
      return { groupId, description: g.string('Description') };
    }),
  }));
  if (structured.length > 0) return structured;
  const protocol = input.string('IpProtocol');
  if (protocol === undefined) throw missingParameter('IpPermissions');
  const cidr = input.string('CidrIp');
  const sourceName = input.string('SourceSecurityGroupName');
  const source = sourceName ? state.ec2.securityGroups.findByName(vpcId, sourceName) : undefined;
  return [
    {
      protocol,
      fromPort: input.int('FromPort'),
      toPort: input.int('ToPort'),
      cidrs: cidr ? [{ cidr }] : [],
      groups: source ? [{ groupId: source.id }] : [],
    },
  ];
}

/** The group a call targets: `GroupId`, or `GroupName` in the first VPC (EC2's default-VPC lookup). */
function targetGroup(state: AwsState, input: QueryInput): SecurityGroup {
  const id = input.string('GroupId');
  if (id !== undefined) return state.ec2.securityGroups.require(id);
  const name = input.string('GroupName');
  if (name === undefined) throw missingParameter('GroupId');
  const vpc = state.ec2.vpcs().find((v) => v.isDefault) ?? state.ec2.vpcs()[0];
  const group = vpc ? state.ec2.securityGroups.findByName(vpc.id, name) : undefined;
  if (!group)
    throw new AwsApiError(
      'InvalidGroup.NotFound',
      `The security group '${name}' does not exist in default VPC '${vpc?.id ?? 'none'}'`,
    );
  return group;
}

function ruleSetXml(state: AwsState, groupId: string, rules: readonly SecurityGroupRule[]): string {
  return xmlElement(
    'securityGroupRuleSet',
    rules.map((r) => ({
      securityGroupRuleId: r.id,
      groupId,
      groupOwnerId: state.accountId,
      isEgress: r.isEgress,
      ipProtocol: r.protocol,
      fromPort: r.fromPort ?? -1,
      toPort: r.toPort ?? -1,
      cidrIpv4: r.cidrIpv4,
      cidrIpv6: r.cidrIpv6,
      referencedGroupInfo: r.referencedGroupId
        ? { groupId: r.referencedGroupId, userId: state.accountId }
        : undefined,
      description: r.description,
      securityGroupRuleArn: ec2Arn(state.region, state.accountId, 'security-group-rule', r.id),
    })),
    'item',
  );
}

function authorize(egress: boolean) {
  return ({ state, input }: ActionContext): string => {
    const group = targetGroup(state, input);
    const added = state.ec2.securityGroups.authorize(
      group.id,
      egress,
      readPermissions(state, input, group.vpcId),
    );
    return `<return>true</return>${ruleSetXml(state, group.id, added)}`;
  };
}

function revoke(egress: boolean) {
  return ({ state, input }: ActionContext): string => {
    const group = targetGroup(state, input);
    const { revoked, unknown } = state.ec2.securityGroups.revoke(
      group.id,
      egress,
      readPermissions(state, input, group.vpcId),
    );
    const unknownXml = xmlElement(
      'unknownIpPermissionSet',
      unknown.map((p) => ({
        ipProtocol: p.protocol,
        fromPort: p.fromPort,
        toPort: p.toPort,
        ipRanges: (p.cidrs ?? []).map((c) => ({ cidrIp: c.cidr })),
        groups: (p.groups ?? []).map((g) => ({ groupId: g.groupId })),
      })),
      'item',
    );
    const revokedXml = xmlElement(
      'revokedSecurityGroupRuleSet',
      revoked.map((r) => ({
        securityGroupRuleId: r.id,
        groupId: group.id,
        isEgress: r.isEgress,
        ipProtocol: r.protocol,
        fromPort: r.fromPort ?? -1,
        toPort: r.toPort ?? -1,
        cidrIpv4: r.cidrIpv4,
        cidrIpv6: r.cidrIpv6,
        referencedGroupId: r.referencedGroupId,
        description: r.description,
      })),
      'item',
    );
    return `<return>true</return>${unknownXml}${revokedXml}`;
  };
}

function groupArns({ state, input }: ActionContext): string[] {
  const id = input.string('GroupId');
  return [ec2Arn(state.region, state.accountId, 'security-group', id ?? '*')];
}

export const securityGroupActions: ActionTable = {
  DescribeSecurityGroups: { handle: describeSecurityGroups },
  CreateSecurityGroup: {
    resources: ({ state }) => [ec2Arn(state.region, state.accountId, 'security-group', '*')],
    handle: ({ state, input }) => {
      const name = input.requiredString('GroupName');
      const vpcId =
        input.string('VpcId') ?? (state.ec2.vpcs().find((v) => v.isDefault) ?? state.ec2.vpcs()[0])?.id;
      if (vpcId === undefined) throw new AwsApiError('VPCIdNotSpecified', 'No default VPC for this user');
      state.ec2.network.requireVpc(vpcId);
      const group = state.ec2.securityGroups.create({
        name,
        description: input.requiredString('GroupDescription'),
        vpcId,
        tags: tagSpecifications(input, 'security-group'),
      });
      return (
        `<return>true</return><groupId>${group.id}</groupId>${group.tags.size > 0 ? tagSetXml(group.tags) : ''}` +
        `<securityGroupArn>${ec2Arn(state.region, state.accountId, 'security-group', group.id)}</securityGroupArn>`
      );
    },
  },
  DeleteSecurityGroup: {
    resources: groupArns,
    handle: ({ state, input }) => {
      const group = targetGroup(state, input);
      state.ec2.securityGroups.delete(group.id, state.ec2.instances.usingSecurityGroup(group.id)?.id);
      return `<return>true</return><groupId>${group.id}</groupId>`;
    },
  },
  AuthorizeSecurityGroupIngress: { resources: groupArns, handle: authorize(false) },
  AuthorizeSecurityGroupEgress: { resources: groupArns, handle: authorize(true) },
  RevokeSecurityGroupIngress: { resources: groupArns, handle: revoke(false) },
  RevokeSecurityGroupEgress: { resources: groupArns, handle: revoke(true) },
};
