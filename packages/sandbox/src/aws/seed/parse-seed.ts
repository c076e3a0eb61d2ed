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

function checkReferences(seed: ParsedAwsSeed, file: string | undefined): void {
  const fail = (field: string, value: unknown, message: string, hint: string): never => {
    throw referenceError(file, field, value, message, hint);
  };
  const unique = (list: readonly { id?: string | undefined }[], what: string): Set<string> => {
    const seen = new Set<string>();
    list.forEach((item, i) => {
      if (item.id === undefined) return;
      if (seen.has(item.id))
        fail(`${what}[${i}].id`, item.id, 'duplicate id', 'give every resource its own id');
      seen.add(item.id);
    });
    return seen;
  };
  const uniqueNames = (list: readonly { name: string }[], what: string): Set<string> => {
    const seen = new Set<string>();
    list.forEach((item, i) => {
      const key = item.name.toLowerCase();
      if (seen.has(key)) fail(`${what}[${i}].name`, item.name, 'duplicate name', 'names must be unique');
      seen.add(key);
    });
    return seen;
  };
  const dhcpOptions = unique(seed.dhcpOptions, 'dhcpOptions');
  seed.vpcs.forEach((v, i) => {
    if (v.dhcpOptionsId !== undefined && v.dhcpOptionsId !== 'default' && !dhcpOptions.has(v.dhcpOptionsId)) {
      fail(
        `vpcs[${i}].dhcpOptionsId`,
        v.dhcpOptionsId,
        `DHCP options ${v.dhcpOptionsId} are not declared in dhcpOptions`,
        'declare the set in dhcpOptions (with an id), use default for none, or omit it for the account default',
      );
    }
  });
  const vpcs = unique(seed.vpcs, 'vpcs');
  const subnets = unique(seed.subnets, 'subnets');
  const groups = unique(seed.securityGroups, 'securityGroups');
  const instances = unique(seed.instances, 'instances');
  unique(seed.routeTables, 'routeTables');
  const refVpc = (field: string, id: string | undefined): void => {
    if (id === undefined) {
      if (seed.vpcs.length !== 1) {
        fail(
          field,
          id,
          'no vpcId given and the seed does not have exactly one VPC',
          'set vpcId to one of the VPCs',
        );
      }
      return;
    }
    if (!vpcs.has(id))
      fail(field, id, `VPC ${id} is not declared in vpcs`, 'declare the VPC or correct the id');
  };
  const refAll = (field: string, ids: readonly string[], known: Set<string>, what: string): void => {
    ids.forEach((id, i) => {
      if (!known.has(id))
        fail(`${field}[${i}]`, id, `${what} ${id} is not declared`, `declare the ${what} or correct the id`);
    });
  };
  seed.subnets.forEach((s, i) => refVpc(`subnets[${i}].vpcId`, s.vpcId));
  seed.routeTables.forEach((t, i) => {
    refVpc(`routeTables[${i}].vpcId`, t.vpcId);
    refAll(`routeTables[${i}].subnetIds`, t.subnetIds, subnets, 'subnet');
  });
  seed.securityGroups.forEach((g, i) => {
    refVpc(`securityGroups[${i}].vpcId`, g.vpcId);
    [...g.ingress, ...(g.egress ?? [])].forEach((p, j) =>
      refAll(`securityGroups[${i}].rules[${j}].sourceGroupIds`, p.sourceGroupIds, groups, 'security group'),
    );
  });

  const policyNames = uniqueNames(seed.managedPolicies, 'managedPolicies');
  const policyArns = new Set(seed.managedPolicies.flatMap((p) => (p.arn ? [p.arn] : [])));
  const roles = uniqueNames(seed.roles, 'roles');
  const profiles = uniqueNames(seed.instanceProfiles, 'instanceProfiles');
  seed.roles.forEach((r, i) =>
    r.attachedPolicies.forEach((p, j) => {
      const known = p.startsWith('arn:')
        ? policyArns.has(p) ||
          seed.managedPolicies.some((m) => !m.arn && p.endsWith(`:policy${m.path}${m.name}`))
        : policyNames.has(p.toLowerCase());
      if (!known) {
        fail(
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
        fail(
          `instanceProfiles[${i}].roles[${j}]`,
          r,
          `role ${r} is not declared`,
          'declare the role in roles',
        );
    }),
  );

  seed.instances.forEach((inst, i) => {
    if (inst.subnetId !== undefined && !subnets.has(inst.subnetId)) {
      fail(
        `instances[${i}].subnetId`,
        inst.subnetId,
        `subnet ${inst.subnetId} is not declared`,
        'declare the subnet or correct the id',
      );
    }
    if (inst.subnetId === undefined && seed.subnets.length === 0) {
      fail(
        `instances[${i}]`,
        inst.id,
        'an instance needs a subnet and the seed has none',
        'declare a subnet (emptyAccountSeed() has three)',
      );
    }
    if (inst.subnetId !== undefined && inst.availabilityZone !== undefined) {
      const subnet = seed.subnets.find((s) => s.id === inst.subnetId)!;
      if (subnet.availabilityZone !== inst.availabilityZone) {
        fail(
          `instances[${i}].availabilityZone`,
          inst.availabilityZone,
          `subnet ${inst.subnetId} is in ${subnet.availabilityZone}`,
          'omit availabilityZone or pick a subnet in that zone',
        );
      }
    }
    if (inst.availabilityZone !== undefined && inst.subnetId === undefined) {
      if (!seed.subnets.some((s) => s.availabilityZone === inst.availabilityZone)) {
        fail(
          `instances[${i}].availabilityZone`,
          inst.availabilityZone,
          'no subnet is in this zone',
          'add a subnet in the zone',
        );
      }
    }
    refAll(`instances[${i}].securityGroupIds`, inst.securityGroupIds ?? [], groups, 'security group');
    if (inst.iamInstanceProfile !== undefined && !profiles.has(inst.iamInstanceProfile.toLowerCase())) {
      fail(
        `instances[${i}].iamInstanceProfile`,
        inst.iamInstanceProfile,
        `instance profile ${inst.iamInstanceProfile} is not declared`,
        'declare it in instanceProfiles',
      );
    }
  });

  uniqueNames(seed.classicLoadBalancers, 'classicLoadBalancers');
  seed.classicLoadBalancers.forEach((lb, i) => {
    refAll(`classicLoadBalancers[${i}].subnetIds`, lb.subnetIds, subnets, 'subnet');
    refAll(`classicLoadBalancers[${i}].securityGroupIds`, lb.securityGroupIds, groups, 'security group');
    refAll(`classicLoadBalancers[${i}].instanceIds`, lb.instanceIds, instances, 'instance');
  });
  const targetGroups = uniqueNames(seed.targetGroups, 'targetGroups');
  seed.targetGroups.forEach((tg, i) => {
    refVpc(`targetGroups[${i}].vpcId`, tg.vpcId);
    if (tg.targetType === 'instance')
      refAll(
        `targetGroups[${i}].targets`,
        tg.targets.map((t) => t.id),
        instances,
        'instance',
      );
  });
  uniqueNames(seed.loadBalancers, 'loadBalancers');
  seed.loadBalancers.forEach((lb, i) => {
    refAll(`loadBalancers[${i}].subnetIds`, lb.subnetIds, subnets, 'subnet');
    refAll(`loadBalancers[${i}].securityGroupIds`, lb.securityGroupIds, groups, 'security group');
    lb.listeners.forEach((l, j) => {
      if (!targetGroups.has(l.targetGroup.toLowerCase())) {
        fail(
          `loadBalancers[${i}].listeners[${j}].targetGroup`,
          l.targetGroup,
          'target group is not declared',
          'declare it in targetGroups',
        );
      }
    });
  });
  const classicNames = new Set(seed.classicLoadBalancers.map((l) => l.name.toLowerCase()));
  uniqueNames(seed.autoScalingGroups, 'autoScalingGroups');
  seed.autoScalingGroups.forEach((g, i) => {
    refAll(`autoScalingGroups[${i}].instanceIds`, g.instanceIds, instances, 'instance');
    refAll(`autoScalingGroups[${i}].subnetIds`, g.subnetIds, subnets, 'subnet');
    g.loadBalancerNames.forEach((n, j) => {
      if (!classicNames.has(n.toLowerCase()))
        fail(
          `autoScalingGroups[${i}].loadBalancerNames[${j}]`,
          n,
          'load balancer is not declared',
          'declare it in classicLoadBalancers',
        );
    });
    g.targetGroupNames.forEach((n, j) => {
      if (!targetGroups.has(n.toLowerCase()))
        fail(
          `autoScalingGroups[${i}].targetGroupNames[${j}]`,
          n,
          'target group is not declared',
          'declare it in targetGroups',
        );
    });
  });
  const keys = new Set<string>();
  seed.accessKeys.forEach((k, i) => {
    if (keys.has(k.accessKeyId))
      fail(
        `accessKeys[${i}].accessKeyId`,
        k.accessKeyId,
        'duplicate access key id',
        'give every key its own id',
      );
    keys.add(k.accessKeyId);
    if (k.principal.type === 'role' && !roles.has(k.principal.roleName.toLowerCase())) {
      fail(
        `accessKeys[${i}].principal.roleName`,
        k.principal.roleName,
        'role is not declared',
        'declare the role in roles',
      );
    }
  });
}
