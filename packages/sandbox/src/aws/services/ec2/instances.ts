import { compileFilters, readFilters, type Filter } from '../../filters/filter-engine.js';
import { literalValues } from '../../filters/wildcard.js';
import { paginate } from '../../paging/page-token.js';
import {
  AwsApiError,
  invalidParameterCombination,
  invalidParameterValue,
} from '../../protocol/aws-api-error.js';
import type { QueryInput } from '../../protocol/query-input.js';
import { escapeXml } from '../../protocol/xml.js';
import type { AwsState } from '../../state/aws-state.js';
import { instanceStateCodes, type Ec2Instance } from '../../state/ec2-types.js';
import type { StateChange } from '../../state/instance-store.js';
import { stableHex } from '../../state/ids.js';
import type { InstanceStateName } from '../../seed/seed-schema.js';
import type { ActionContext, ActionTable } from '../service-types.js';
import { ec2Arn, invalidFilter, invalidNextToken, maxResults, tagSpecifications } from './ec2-common.js';
import { instanceFilterSchema } from './instance-filters.js';
import { reservationSetXml } from './instance-xml.js';
import { readMetadataOptions } from './metadata-options.js';

const INDEXED_FILTERS = ['instance-id', 'private-dns-name', 'private-ip-address'] as const;

/** Narrows the scan with an index when a filter on id, DNS name or IP has only literal values. */
function candidates(state: AwsState, filters: readonly Filter[]): Ec2Instance[] {
  for (const name of INDEXED_FILTERS) {
    const filter = filters.find((f) => f.name === name);
    const values = filter && literalValues(filter.values);
    if (!values) continue;
    const found = new Set<Ec2Instance>();
    for (const v of values) {
      if (name === 'instance-id') {
        const i = state.ec2.instances.get(v);
        if (i) found.add(i);
      } else {
        const list =
          name === 'private-dns-name'
            ? state.ec2.instances.byPrivateDnsName(v)
            : state.ec2.instances.byPrivateIp(v);
        for (const i of list) found.add(i);
      }
    }
    return [...found].sort((a, b) => a.seq - b.seq);
  }
  return state.ec2.instances.all();
}

function describeInstances({ state, input }: ActionContext): string {
  const ids = input.list('InstanceId', 'ec2');
  const limit = maxResults(input);
  if (ids.length > 0 && limit !== undefined) {
    throw invalidParameterCombination(
      'The parameter instancesSet cannot be used with the parameter maxResults',
    );
  }
  const filters = readFilters(input, 'ec2');
  const matches = compileFilters(filters, instanceFilterSchema(state), invalidFilter);
  const pool = ids.length > 0 ? dedupe(state.ec2.instances.requireAll(ids)) : candidates(state, filters);
  const selected = pool.filter(matches);
  const page = paginate(selected, (i) => i.seq, {
    listing: 'DescribeInstances',
    token: input.string('NextToken'),
    limit,
    invalid: invalidNextToken,
  });
  return reservationSetXml(state, page.items) + (page.next ? `<nextToken>${page.next}</nextToken>` : '');
}

function dedupe(instances: Ec2Instance[]): Ec2Instance[] {
  return [...new Set(instances)].sort((a, b) => a.seq - b.seq);
}

/** ClientToken → reservation, so a retried RunInstances launches nothing new (AWS's idempotency). */
const clientTokens = new WeakMap<AwsState, Map<string, string[]>>();

function runInstances({ state, input }: ActionContext): string {
  const min = input.int('MinCount') ?? 1;
  const max = input.int('MaxCount') ?? min;
  if (min < 1 || max < min) {
    throw invalidParameterValue(`Invalid value for MinCount/MaxCount: ${min}/${max}`);
  }
  const privateIp = input.string('PrivateIpAddress');
  if (privateIp !== undefined && max > 1) {
    throw invalidParameterCombination(
      'Cannot specify a private IP address when launching more than one instance',
    );
  }
  const token = input.string('ClientToken');
  let tokens = clientTokens.get(state);
  if (!tokens) clientTokens.set(state, (tokens = new Map()));
  const previous = token === undefined ? undefined : tokens.get(token);
  if (previous) {
    const instances = previous.map((id) => state.ec2.instances.get(id)).filter((i) => i !== undefined);
    return reservationXml(state, instances);
  }
  const profileArn = input.string('IamInstanceProfile.Arn');
  const profileName = input.string('IamInstanceProfile.Name') ?? profileArn?.split('/').pop();
  const groupIds = input.list('SecurityGroupId', 'ec2');
  const groupNames = input.list('SecurityGroup', 'ec2');
  const subnetId = input.string('SubnetId');
  const zone = input.string('Placement.AvailabilityZone');
  const vpcId = subnetId ? state.ec2.network.requireSubnet(subnetId).vpcId : state.ec2.vpcs()[0]?.id;
  const namedGroups = groupNames.map((name) => {
    const g = vpcId === undefined ? undefined : state.ec2.securityGroups.findByName(vpcId, name);
    if (!g)
      throw new AwsApiError(
        'InvalidGroup.NotFound',
        `The security group '${name}' does not exist in VPC '${vpcId}'`,
      );
    return g.id;
  });
  const allGroups = [...groupIds, ...namedGroups];
  const tags = tagSpecifications(input, 'instance');
  const metadataOptions = readMetadataOptions(input, 'MetadataOptions.');
  const specs = Array.from({ length: max }, () => ({
    subnetId,
    availabilityZone: zone,
    privateIpAddress: privateIp,
    instanceType: input.string('InstanceType') ?? 'm1.small',
    imageId: input.requiredString('ImageId'),
    securityGroupIds: allGroups.length > 0 ? allGroups : undefined,
    iamInstanceProfile: profileName,
    keyName: input.string('KeyName'),
    metadataOptions,
    tags,
  }));
  const { instances } = state.runInstances(specs);
  if (token !== undefined)
    tokens.set(
      token,
      instances.map((i) => i.id),
    );
  return reservationXml(state, instances);
}

/** RunInstances answers with the reservation itself (no reservationSet) and instances still `pending`. */
function reservationXml(state: AwsState, instances: readonly Ec2Instance[]): string {
  const set = reservationSetXml(state, instances, (i) => (i.state === 'running' ? 'pending' : i.state));
  // Unwrap `<reservationSet><item>…</item></reservationSet>` into the reservation's fields.
  return set.replace(/^<reservationSet><item>/, '').replace(/<\/item><\/reservationSet>$/, '');
}

function stateChangesXml(
  changes: readonly StateChange[],
  transitional: (c: StateChange) => InstanceStateName,
): string {
  let out = '<instancesSet>';
  for (const c of changes) {
    const current = transitional(c);
    out +=
      `<item><instanceId>${c.instanceId}</instanceId>` +
      `<currentState><code>${instanceStateCodes[current]}</code><name>${current}</name></currentState>` +
      `<previousState><code>${instanceStateCodes[c.previous]}</code><name>${c.previous}</name></previousState></item>`;
  }
  return out + '</instancesSet>';
}

function instanceIds(input: QueryInput): string[] {
  const ids = input.list('InstanceId', 'ec2');
  if (ids.length === 0)
    throw new AwsApiError('MissingParameter', 'The request must contain the parameter InstanceId');
  return ids;
}

function instanceArns({ state, input }: ActionContext): string[] {
  return input.list('InstanceId', 'ec2').map((id) => ec2Arn(state.region, state.accountId, 'instance', id));
}

/** Instance types that report a network topology (DescribeInstanceTopology supports only these families). */
const TOPOLOGY_FAMILIES = [
  'p3dn',
  'p4d',
  'p4de',
  'p5',
  'p5e',
  'p5en',
  'trn1',
  'trn1n',
  'trn2',
  'hpc6a',
  'hpc6id',
  'hpc7a',
  'hpc7g',
  'g6',
  'g6e',
];

function describeInstanceTopology({ state, input }: ActionContext): string {
  const ids = input.list('InstanceId', 'ec2');
  const limit = maxResults(input, 1, 100);
  const filters = readFilters(input, 'ec2');
  const matches = compileFilters(
    filters,
    {
      fields: {
        'availability-zone': (i: Ec2Instance) => i.availabilityZone,
        'instance-type': (i: Ec2Instance) => i.instanceType,
        'zone-id': (i: Ec2Instance) => state.ec2.network.subnet(i.subnetId)?.availabilityZoneId,
      },
    },
    invalidFilter,
  );
  const pool = ids.length > 0 ? state.ec2.instances.requireAll(ids) : state.ec2.instances.all();
  const selected = pool.filter(
    (i) => i.state === 'running' && TOPOLOGY_FAMILIES.includes(i.instanceType.split('.')[0]!) && matches(i),
  );
  const page = paginate(selected, (i) => i.seq, {
    listing: 'DescribeInstanceTopology',
    token: input.string('NextToken'),
    limit,
    invalid: invalidNextToken,
  });
  let out = page.items.length === 0 ? '<instanceSet/>' : '<instanceSet>';
  for (const i of page.items) {
    const zoneId = state.ec2.network.subnet(i.subnetId)?.availabilityZoneId ?? '';
    const nodes = [
      `nn-${stableHex(i.availabilityZone, 17)}`,
      `nn-${stableHex(`${i.availabilityZone}/2`, 17)}`,
      `nn-${stableHex(i.id, 17)}`,
    ];
    out +=
      `<item><instanceId>${i.id}</instanceId><instanceType>${escapeXml(i.instanceType)}</instanceType>` +
      `<networkNodeSet>${nodes.map((n) => `<item>${n}</item>`).join('')}</networkNodeSet>` +
      `<availabilityZone>${i.availabilityZone}</availabilityZone><zoneId>${zoneId}</zoneId></item>`;
  }
  if (page.items.length > 0) out += '</instanceSet>';
  return out + (page.next ? `<nextToken>${page.next}</nextToken>` : '');
}

export const instanceActions: ActionTable = {
  DescribeInstances: { handle: describeInstances },
  RunInstances: {
    resources: ({ state }) => [ec2Arn(state.region, state.accountId, 'instance', '*')],
    handle: runInstances,
  },
  TerminateInstances: {
    resources: instanceArns,
    handle: ({ state, input }) =>
      stateChangesXml(state.ec2.terminate(instanceIds(input)), (c) =>
        c.previous === 'terminated' ? 'terminated' : 'shutting-down',
      ),
  },
  StopInstances: {
    resources: instanceArns,
    handle: ({ state, input }) =>
      stateChangesXml(state.ec2.stop(instanceIds(input)), (c) =>
        c.previous === 'stopped' ? 'stopped' : 'stopping',
      ),
  },
  StartInstances: {
    resources: instanceArns,
    handle: ({ state, input }) =>
      stateChangesXml(state.ec2.start(instanceIds(input)), (c) =>
        c.previous === 'running' ? 'running' : 'pending',
      ),
  },
  DescribeInstanceTopology: { handle: describeInstanceTopology },
};
