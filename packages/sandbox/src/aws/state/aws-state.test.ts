import { describe, expect, it } from 'vitest';
import { loadSeed } from '../seed/load-seed.js';
import { parseAwsSeed } from '../seed/parse-seed.js';
import { emptyAccountSeed, EMPTY_ACCOUNT_IDS } from '../seed/empty-account-seed.js';
import { AwsApiError } from '../protocol/aws-api-error.js';
import { UprootError } from 'uproot';
import { AwsState } from './aws-state.js';

function account(now: { t: number }, seedOverrides: Record<string, unknown> = {}): AwsState {
  const seed = parseAwsSeed({ ...emptyAccountSeed(), ...seedOverrides });
  const state = new AwsState({
    accountId: seed.accountId,
    region: seed.region,
    enforceIam: seed.enforceIam,
    adminUserName: seed.adminUserName,
    now: () => now.t,
    terminatedRetentionMs: 60_000,
    credentialTtlMs: 6 * 3600_000,
  });
  loadSeed(state, seed);
  return state;
}

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof AwsApiError) return error.code;
    throw error;
  }
  return 'no error';
};

describe('instances', () => {
  it('derives private DNS names from the address and region', () => {
    const clock = { t: 0 };
    const state = account(clock);
    const i = state.runInstance({ privateIpAddress: '10.0.1.23' });
    expect(i.privateDnsName).toBe('ip-10-0-1-23.ec2.internal');
    expect(i.availabilityZone).toBe('us-east-1a');
    const west = account(clock, emptyAccountSeed({ region: 'eu-west-2' }));
    expect(west.runInstance({}).privateDnsName).toMatch(/^ip-10-0-0-4\.eu-west-2\.compute\.internal$/);
  });

  it('allocates distinct addresses after the four AWS reserves, in the requested zone', () => {
    const state = account({ t: 0 });
    const a = state.runInstance({ availabilityZone: 'us-east-1b' });
    const b = state.runInstance({ availabilityZone: 'us-east-1b' });
    expect([a.privateIpAddress, b.privateIpAddress]).toEqual(['10.0.16.4', '10.0.16.5']);
    expect(
      codeOf(() => state.runInstance({ privateIpAddress: '10.0.16.4', availabilityZone: 'us-east-1b' })),
    ).toBe('InvalidIPAddress.InUse');
  });

  it('keeps a terminated instance visible for the retention, then drops it from every index', () => {
    const clock = { t: 1_000 };
    const state = account(clock);
    const i = state.runInstance({});
    expect(state.terminateInstance(i.id)).toEqual({
      instanceId: i.id,
      previous: 'running',
      current: 'terminated',
    });
    clock.t += 59_999;
    expect(state.ec2.instance(i.id)?.state).toBe('terminated');
    clock.t += 1;
    expect(state.ec2.instance(i.id)).toBeUndefined();
    expect(state.ec2.instances.byPrivateDnsName(i.privateDnsName)).toEqual([]);
    expect(codeOf(() => state.ec2.instances.requireAll([i.id]))).toBe('InvalidInstanceID.NotFound');
  });

  it('tells malformed ids from unknown ones', () => {
    const state = account({ t: 0 });
    expect(codeOf(() => state.ec2.instances.requireAll(['i-123']))).toBe('InvalidInstanceID.Malformed');
    expect(codeOf(() => state.ec2.instances.requireAll(['i-0bc1.aws.example.com']))).toBe(
      'InvalidInstanceID.Malformed',
    );
    expect(codeOf(() => state.ec2.instances.requireAll(['i-12345678']))).toBe('InvalidInstanceID.NotFound');
  });

  it('bumps the EC2 revision on changes so cached renderings go stale', () => {
    const state = account({ t: 0 });
    const i = state.runInstance({});
    const before = state.ec2.revision;
    state.ec2.createTags([i.id], { a: 'b' });
    expect(state.ec2.revision).toBeGreaterThan(before);
  });
});

describe('tags', () => {
  it('adds, overwrites and deletes (by key, or by key and value)', () => {
    const state = account({ t: 0 });
    const i = state.runInstance({ tags: { a: '1' } });
    state.ec2.createTags([i.id, EMPTY_ACCOUNT_IDS.vpc], { a: '2', b: '3' });
    expect(state.ec2.tagRecord(i.id)).toEqual({ a: '2', b: '3' });
    state.ec2.deleteTags([i.id], [{ key: 'a', value: 'nope' }, { key: 'b' }]);
    expect(state.ec2.tagRecord(i.id)).toEqual({ a: '2' });
    expect(state.ec2.tagRecord(EMPTY_ACCOUNT_IDS.vpc)).toMatchObject({ a: '2', b: '3' });
  });

  it('rejects reserved keys and unknown resources without changing anything', () => {
    const state = account({ t: 0 });
    const i = state.runInstance({});
    expect(codeOf(() => state.ec2.createTags([i.id], { 'aws:x': 'y' }))).toBe('InvalidParameterValue');
    expect(codeOf(() => state.ec2.createTags([i.id, 'subnet-0123456789abcdef0'], { k: 'v' }))).toBe(
      'InvalidSubnetID.NotFound',
    );
    expect(state.ec2.tagRecord(i.id)).toEqual({});
  });
});

describe('DHCP options and routes', () => {
  it('gives a VPC without its own DHCP options the account default, shared and made once', () => {
    const state = account({ t: 0 });
    const vpc = state.ec2.vpcs()[0]!;
    const second = state.ec2.network.addVpc({ cidrBlock: '10.1.0.0/16' });
    expect(second.dhcpOptionsId).toBe(vpc.dhcpOptionsId);
    expect(state.ec2.dhcpOptions()).toHaveLength(1);
    expect(state.ec2.network.requireDhcpOptions(vpc.dhcpOptionsId).configurations).toEqual([
      { key: 'domain-name', values: ['ec2.internal'] },
      { key: 'domain-name-servers', values: ['AmazonProvidedDNS'] },
    ]);
    expect(
      codeOf(() => state.ec2.network.addVpc({ cidrBlock: '10.2.0.0/16', dhcpOptionsId: 'dopt-01234567' })),
    ).toBe('InvalidDhcpOptionID.NotFound');
  });

  it('adds and removes routes with EC2 error codes, and bumps the revision', () => {
    const state = account({ t: 0 });
    const table = EMPTY_ACCOUNT_IDS.routeTable;
    const i = state.runInstance({});
    const before = state.ec2.revision;
    state.ec2.createRoute(table, { destinationCidrBlock: '10.42.0.0/24', instanceId: i.id });
    expect(state.ec2.revision).toBeGreaterThan(before);
    const route = { destinationCidrBlock: '10.42.0.0/24', instanceId: i.id };
    expect(codeOf(() => state.ec2.createRoute(table, route))).toBe('RouteAlreadyExists');
    expect(codeOf(() => state.ec2.createRoute('rtb-01234567', route))).toBe('InvalidRouteTableID.NotFound');
    expect(
      codeOf(() => state.ec2.createRoute(table, { destinationCidrBlock: '10.43.0.5/24', instanceId: i.id })),
    ).toBe('InvalidParameterValue');
    expect(codeOf(() => state.ec2.createRoute(table, { destinationCidrBlock: '10.43.0.0/24' }))).toBe(
      'MissingParameter',
    );
    expect(
      codeOf(() =>
        state.ec2.createRoute(table, {
          destinationCidrBlock: '10.43.0.0/24',
          instanceId: 'i-0123456789abcdef0',
        }),
      ),
    ).toBe('InvalidInstanceID.NotFound');
    state.ec2.deleteRoute(table, '10.42.0.0/24');
    expect(codeOf(() => state.ec2.deleteRoute(table, '10.42.0.0/24'))).toBe('InvalidRoute.NotFound');
    expect(codeOf(() => state.ec2.deleteRoute(table, '10.0.0.0/16'))).toBe('InvalidParameterValue');
    expect(state.ec2.network.requireRouteTable(table).routes.map((r) => r.destinationCidrBlock)).toEqual([
      '10.0.0.0/16',
      '0.0.0.0/0',
    ]);
  });
});

describe('security groups', () => {
  it('authorizes, rejects duplicates, and revokes rules', () => {
    const state = account({ t: 0 });
    const g = state.ec2.securityGroups.create({ name: 'lb', description: 'x', vpcId: EMPTY_ACCOUNT_IDS.vpc });
    const rule = { protocol: 'TCP', fromPort: 80, toPort: 80, cidrs: [{ cidr: '0.0.0.0/0' }] };
    state.ec2.securityGroups.authorize(g.id, false, [rule]);
    expect(codeOf(() => state.ec2.securityGroups.authorize(g.id, false, [rule]))).toBe(
      'InvalidPermission.Duplicate',
    );
    expect(state.ec2.securityGroups.revoke(g.id, false, [rule]).revoked).toHaveLength(1);
    expect(codeOf(() => state.ec2.securityGroups.revoke(g.id, false, [rule]))).toBe(
      'InvalidPermission.NotFound',
    );
  });

  it('refuses to delete a group an instance still uses', () => {
    const state = account({ t: 0 });
    const i = state.runInstance({});
    expect(codeOf(() => state.ec2.securityGroups.delete(EMPTY_ACCOUNT_IDS.securityGroup, i.id))).toBe(
      'DependencyViolation',
    );
  });
});

describe('IAM', () => {
  it('rejects malformed policy documents as IAM does', () => {
    const state = account({ t: 0 }, { roles: [{ name: 'node' }] });
    expect(codeOf(() => state.iam.putRolePolicy('node', 'p', '{not json'))).toBe('MalformedPolicyDocument');
    expect(
      codeOf(() => state.iam.putRolePolicy('node', 'p', '{"Statement":[{"Effect":"Maybe","Action":"*"}]}')),
    ).toBe('MalformedPolicyDocument');
  });

  it('looks roles up without regard to case and bumps the revision on permission changes', () => {
    const state = account({ t: 0 }, { roles: [{ name: 'Node' }] });
    expect(state.iam.requireRole('node').name).toBe('Node');
    const before = state.iam.revision;
    state.iam.putRolePolicy(
      'node',
      'p',
      JSON.stringify({ Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] }),
    );
    expect(state.iam.revision).toBeGreaterThan(before);
    expect(state.iam.effectivePolicies('node').map((p) => p.name)).toEqual(['p']);
  });

  it('issues instance credentials for the instance profile’s role and reuses them until near expiry', () => {
    const clock = { t: 0 };
    const state = account(clock, {
      roles: [{ name: 'node' }],
      instanceProfiles: [{ name: 'node', roles: ['node'] }],
      instances: [{ iamInstanceProfile: 'node' }],
    });
    const [i] = state.ec2.listInstances();
    const first = state.credentialsFor({ type: 'instance', instanceId: i!.id });
    expect(first.accessKeyId).toMatch(/^ASIA/);
    expect(state.credentialsFor({ type: 'instance', instanceId: i!.id })).toEqual(first);
    expect(state.credentials.identify(first.accessKeyId)?.arn).toBe(
      `arn:aws:sts::123456789012:assumed-role/node/${i!.id}`,
    );
    clock.t += 5 * 3600_000;
    expect(state.credentialsFor({ type: 'instance', instanceId: i!.id }).accessKeyId).not.toBe(
      first.accessKeyId,
    );
  });
});

describe('seed loading', () => {
  it('reports what only the state can check as an InputError naming the entry', () => {
    const seed = parseAwsSeed({
      ...emptyAccountSeed(),
      instances: [{}, { subnetId: EMPTY_ACCOUNT_IDS.subnets[0], privateIpAddress: '10.0.200.1' }],
    });
    const state = new AwsState({
      accountId: seed.accountId,
      region: seed.region,
      enforceIam: false,
      adminUserName: 'admin',
      now: () => 0,
      terminatedRetentionMs: 1,
      credentialTtlMs: 1,
    });
    let error: unknown;
    try {
      loadSeed(state, seed, 'cluster.yaml');
    } catch (e) {
      error = e;
    }
    expect(UprootError.is(error)).toBe(true);
    expect((error as UprootError).location).toEqual({ file: 'cluster.yaml', field: 'instances[1]' });
    expect((error as UprootError).message).toContain(
      "Address 10.0.200.1 does not fall within the subnet's address range",
    );
  });
});
