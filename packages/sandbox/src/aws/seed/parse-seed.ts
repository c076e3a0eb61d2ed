import type { z } from 'zod';
import { InputError, fieldPath, valueAt } from 'uproot';
import { awsSeedSchema, type ParsedAwsSeed } from './seed-schema.js';

/**
 * Validates a seed: first its shape (zod), then that every reference points at something declared. Either
 * failure is an InputError naming the file, the field path (`instances[2].subnetId`) and the value.
 */
export function parseAwsSeed(input: unknown, options: { file?: string } = {}): ParsedAwsSeed {
  const result = awsSeedSchema.safeParse(input ?? {});
  if (!result.success) throw shapeError(result.error, input, options.file);
  checkReferences(result.data, options.file);
  return result.data;
}

function shapeError(error: z.ZodError, input: unknown, file: string | undefined): InputError {
  const issue = error.issues[0]!;
  const field = fieldPath(issue.path);
  const extra = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more problem(s))` : '';
  const unrecognized = issue.code === 'unrecognized_keys' ? (issue as { keys: string[] }).keys : undefined;
  return new InputError(
    'UP-AWS-SEED-INVALID',
    `aws seed${file ? ` ${file}` : ''}: ${field || '(top level)'}: ${issue.message}${extra}`,
    {
      location: {
        ...(file ? { file } : {}),
        field: unrecognized ? fieldPath([...issue.path, unrecognized[0]!]) : field,
        value: unrecognized
          ? unrecognized[0]
          : issue.path[issue.path.length - 1] === 'secretAccessKey'
            ? '<redacted>'
            : valueAt(input, issue.path),
      },
      hint: unrecognized
        ? 'remove or correct the misspelt field; the seed accepts only the documented fields'
        : 'correct the value so it matches the documented seed format',
    },
  );
}

function referenceError(
  file: string | undefined,
  field: string,
  value: unknown,
  message: string,
  hint: string,
): InputError {
  return new InputError('UP-AWS-SEED-REFERENCE', `aws seed${file ? ` ${file}` : ''}: ${field}: ${message}`, {
    location: { ...(file ? { file } : {}), field, value },
    hint,
  });
}

/** The ids of the resources the seed declares, as other resources refer to them. */
interface Declared {
  readonly vpcs: Set<string>;
  readonly subnets: Set<string>;
  readonly groups: Set<string>;
  readonly instances: Set<string>;
}

/** The rules every reference check uses: a failure names the field; ids and names are unique. */
class SeedReferences {
  constructor(
    readonly seed: ParsedAwsSeed,
    private readonly file: string | undefined,
  ) {}

  fail(field: string, value: unknown, message: string, hint: string): never {
    throw referenceError(this.file, field, value, message, hint);
  }

  unique(list: readonly { id?: string | undefined }[], what: string): Set<string> {
    const seen = new Set<string>();
    list.forEach((item, i) => {
      if (item.id === undefined) return;
      if (seen.has(item.id))
        this.fail(`${what}[${i}].id`, item.id, 'duplicate id', 'give every resource its own id');
      seen.add(item.id);
    });
    return seen;
  }

  /** Names compare case-insensitively, as AWS compares IAM and load balancer names. */
  uniqueNames(list: readonly { name: string }[], what: string): Set<string> {
    const seen = new Set<string>();
    list.forEach((item, i) => {
      const key = item.name.toLowerCase();
      if (seen.has(key)) this.fail(`${what}[${i}].name`, item.name, 'duplicate name', 'names must be unique');
      seen.add(key);
    });
    return seen;
  }

  /** A vpcId, or none when the seed has exactly one VPC. */
  vpc(field: string, id: string | undefined, vpcs: Set<string>): void {
    if (id === undefined) {
      if (this.seed.vpcs.length !== 1) {
        this.fail(
          field,
          id,
          'no vpcId given and the seed does not have exactly one VPC',
          'set vpcId to one of the VPCs',
        );
      }
      return;
    }
    if (!vpcs.has(id))
      this.fail(field, id, `VPC ${id} is not declared in vpcs`, 'declare the VPC or correct the id');
  }

  all(field: string, ids: readonly string[], known: Set<string>, what: string): void {
    ids.forEach((id, i) => {
      if (!known.has(id))
        this.fail(
          `${field}[${i}]`,
          id,
          `${what} ${id} is not declared`,
          `declare the ${what} or correct the id`,
        );
    });
  }

  /** Names that must be declared in `list` (case-insensitive), each failing with `message` and `hint`. */
  names(field: string, names: readonly string[], known: Set<string>, message: string, hint: string): void {
    names.forEach((n, j) => {
      if (!known.has(n.toLowerCase())) this.fail(`${field}[${j}]`, n, message, hint);
    });
  }
}

/** One check per kind of reference, in the seed's order (the first broken reference is the one reported). */
function checkReferences(seed: ParsedAwsSeed, file: string | undefined): void {
  const refs = new SeedReferences(seed, file);
  const declared = checkNetwork(refs);
  const { roles, profiles } = checkIam(refs);
  checkInstances(refs, declared, profiles);
  const targetGroups = checkLoadBalancers(refs, declared);
  checkAutoScalingGroups(refs, declared, targetGroups);
  checkAccessKeys(refs, roles);
}

/** DHCP options, VPCs, subnets, route tables and security groups; every id unique. */
function checkNetwork(refs: SeedReferences): Declared {
  const { seed } = refs;
  const dhcpOptions = refs.unique(seed.dhcpOptions, 'dhcpOptions');
  seed.vpcs.forEach((v, i) => {
    if (v.dhcpOptionsId !== undefined && v.dhcpOptionsId !== 'default' && !dhcpOptions.has(v.dhcpOptionsId)) {
      refs.fail(
        `vpcs[${i}].dhcpOptionsId`,
        v.dhcpOptionsId,
        `DHCP options ${v.dhcpOptionsId} are not declared in dhcpOptions`,
        'declare the set in dhcpOptions (with an id), use default for none, or omit it for the account default',
      );
    }
  });
  const declared: Declared = {
    vpcs: refs.unique(seed.vpcs, 'vpcs'),
    subnets: refs.unique(seed.subnets, 'subnets'),
    groups: refs.unique(seed.securityGroups, 'securityGroups'),
    instances: refs.unique(seed.instances, 'instances'),
  };
  refs.unique(seed.routeTables, 'routeTables');
  const { vpcs, subnets, groups } = declared;
  seed.subnets.forEach((s, i) => refs.vpc(`subnets[${i}].vpcId`, s.vpcId, vpcs));
  seed.routeTables.forEach((t, i) => {
    refs.vpc(`routeTables[${i}].vpcId`, t.vpcId, vpcs);
    refs.all(`routeTables[${i}].subnetIds`, t.subnetIds, subnets, 'subnet');
  });
  seed.securityGroups.forEach((g, i) => {
    refs.vpc(`securityGroups[${i}].vpcId`, g.vpcId, vpcs);
    [...g.ingress, ...(g.egress ?? [])].forEach((p, j) =>
      refs.all(`securityGroups[${i}].rules[${j}].sourceGroupIds`, p.sourceGroupIds, groups, 'security group'),
    );
  });
  return declared;
}

/** Managed policies, roles (their attached policies) and instance profiles (their roles). */
function checkIam(refs: SeedReferences): { roles: Set<string>; profiles: Set<string> } {
  const { seed } = refs;
  const policyNames = refs.uniqueNames(seed.managedPolicies, 'managedPolicies');
  const policyArns = new Set(seed.managedPolicies.flatMap((p) => (p.arn ? [p.arn] : [])));
  const roles = refs.uniqueNames(seed.roles, 'roles');
  const profiles = refs.uniqueNames(seed.instanceProfiles, 'instanceProfiles');
  seed.roles.forEach((r, i) =>
    r.attachedPolicies.forEach((p, j) => {
      const known = p.startsWith('arn:')
        ? policyArns.has(p) ||
          seed.managedPolicies.some((m) => !m.arn && p.endsWith(`:policy${m.path}${m.name}`))
        : policyNames.has(p.toLowerCase());
      if (!known) {
        refs.fail(
          `roles[${i}].attachedPolicies[${j}]`,
          p,
          `policy ${p} is not declared in managedPolicies`,
          'declare the policy (with its document) in managedPolicies, or attach it by a declared name',
        );
      }
    }),
  );
  seed.instanceProfiles.forEach((p, i) =>
    p.roles.forEach((r, j) => {
      if (!roles.has(r.toLowerCase()))
        refs.fail(
          `instanceProfiles[${i}].roles[${j}]`,
          r,
          `role ${r} is not declared`,
          'declare the role in roles',
        );
    }),
  );
  return { roles, profiles };
}

/** Each instance's subnet (and zone), security groups and instance profile. */
function checkInstances(refs: SeedReferences, declared: Declared, profiles: Set<string>): void {
  const { seed } = refs;
  seed.instances.forEach((inst, i) => {
    if (inst.subnetId !== undefined && !declared.subnets.has(inst.subnetId)) {
      refs.fail(
        `instances[${i}].subnetId`,
        inst.subnetId,
        `subnet ${inst.subnetId} is not declared`,
        'declare the subnet or correct the id',
      );
    }
    if (inst.subnetId === undefined && seed.subnets.length === 0) {
      refs.fail(
        `instances[${i}]`,
        inst.id,
        'an instance needs a subnet and the seed has none',
        'declare a subnet (emptyAccountSeed() has three)',
      );
    }
    if (inst.subnetId !== undefined && inst.availabilityZone !== undefined) {
      const subnet = seed.subnets.find((s) => s.id === inst.subnetId)!;
      if (subnet.availabilityZone !== inst.availabilityZone) {
        refs.fail(
          `instances[${i}].availabilityZone`,
          inst.availabilityZone,
          `subnet ${inst.subnetId} is in ${subnet.availabilityZone}`,
          'omit availabilityZone or pick a subnet in that zone',
        );
      }
    }
    if (inst.availabilityZone !== undefined && inst.subnetId === undefined) {
      if (!seed.subnets.some((s) => s.availabilityZone === inst.availabilityZone)) {
        refs.fail(
          `instances[${i}].availabilityZone`,
          inst.availabilityZone,
          'no subnet is in this zone',
          'add a subnet in the zone',
        );
      }
    }
    refs.all(
      `instances[${i}].securityGroupIds`,
      inst.securityGroupIds ?? [],
      declared.groups,
      'security group',
    );
    if (inst.iamInstanceProfile !== undefined && !profiles.has(inst.iamInstanceProfile.toLowerCase())) {
      refs.fail(
        `instances[${i}].iamInstanceProfile`,
        inst.iamInstanceProfile,
        `instance profile ${inst.iamInstanceProfile} is not declared`,
        'declare it in instanceProfiles',
      );
    }
  });
}

/** Classic load balancers, target groups and v2 load balancers; returns the target groups' names. */
function checkLoadBalancers(refs: SeedReferences, declared: Declared): Set<string> {
  const { seed } = refs;
  const { subnets, groups, instances } = declared;
  refs.uniqueNames(seed.classicLoadBalancers, 'classicLoadBalancers');
  seed.classicLoadBalancers.forEach((lb, i) => {
    refs.all(`classicLoadBalancers[${i}].subnetIds`, lb.subnetIds, subnets, 'subnet');
    refs.all(`classicLoadBalancers[${i}].securityGroupIds`, lb.securityGroupIds, groups, 'security group');
    refs.all(`classicLoadBalancers[${i}].instanceIds`, lb.instanceIds, instances, 'instance');
  });
  const targetGroups = refs.uniqueNames(seed.targetGroups, 'targetGroups');
  seed.targetGroups.forEach((tg, i) => {
    refs.vpc(`targetGroups[${i}].vpcId`, tg.vpcId, declared.vpcs);
    if (tg.targetType === 'instance')
      refs.all(
        `targetGroups[${i}].targets`,
        tg.targets.map((t) => t.id),
        instances,
        'instance',
      );
  });
  refs.uniqueNames(seed.loadBalancers, 'loadBalancers');
  seed.loadBalancers.forEach((lb, i) => {
    refs.all(`loadBalancers[${i}].subnetIds`, lb.subnetIds, subnets, 'subnet');
    refs.all(`loadBalancers[${i}].securityGroupIds`, lb.securityGroupIds, groups, 'security group');
    lb.listeners.forEach((l, j) => {
      if (!targetGroups.has(l.targetGroup.toLowerCase())) {
        refs.fail(
          `loadBalancers[${i}].listeners[${j}].targetGroup`,
          l.targetGroup,
          'target group is not declared',
          'declare it in targetGroups',
        );
      }
    });
  });
  return targetGroups;
}

/** Each group's instances, subnets, classic load balancers and target groups. */
function checkAutoScalingGroups(refs: SeedReferences, declared: Declared, targetGroups: Set<string>): void {
  const { seed } = refs;
  const classicNames = new Set(seed.classicLoadBalancers.map((l) => l.name.toLowerCase()));
  refs.uniqueNames(seed.autoScalingGroups, 'autoScalingGroups');
  seed.autoScalingGroups.forEach((g, i) => {
    refs.all(`autoScalingGroups[${i}].instanceIds`, g.instanceIds, declared.instances, 'instance');
    refs.all(`autoScalingGroups[${i}].subnetIds`, g.subnetIds, declared.subnets, 'subnet');
    refs.names(
      `autoScalingGroups[${i}].loadBalancerNames`,
      g.loadBalancerNames,
      classicNames,
      'load balancer is not declared',
      'declare it in classicLoadBalancers',
    );
    refs.names(
      `autoScalingGroups[${i}].targetGroupNames`,
      g.targetGroupNames,
      targetGroups,
      'target group is not declared',
      'declare it in targetGroups',
    );
  });
}

/** Access key ids unique, a role principal declared. */
function checkAccessKeys(refs: SeedReferences, roles: Set<string>): void {
  const keys = new Set<string>();
  refs.seed.accessKeys.forEach((k, i) => {
    if (keys.has(k.accessKeyId))
      refs.fail(
        `accessKeys[${i}].accessKeyId`,
        k.accessKeyId,
        'duplicate access key id',
        'give every key its own id',
      );
    keys.add(k.accessKeyId);
    if (k.principal.type === 'role' && !roles.has(k.principal.roleName.toLowerCase())) {
      refs.fail(
        `accessKeys[${i}].principal.roleName`,
        k.principal.roleName,
        'role is not declared',
        'declare the role in roles',
      );
    }
  });
}
