import { describe, expect, it } from 'vitest';
import { UprootError } from 'uproot';
import { emptyAccountSeed, EMPTY_ACCOUNT_IDS } from './empty-account-seed.js';
import { parseAwsSeed } from './parse-seed.js';

function failure(input: unknown, file?: string): UprootError {
  try {
    parseAwsSeed(input, file ? { file } : {});
  } catch (error) {
    if (UprootError.is(error)) return error;
    throw error;
  }
  throw new Error('expected the seed to be rejected');
}

describe('parseAwsSeed', () => {
  it('fills defaults for an empty seed', () => {
    const seed = parseAwsSeed({});
    expect(seed).toMatchObject({
      accountId: '123456789012',
      region: 'us-east-1',
      enforceIam: false,
      instances: [],
    });
  });

  it('accepts the default empty account', () => {
    const seed = parseAwsSeed(emptyAccountSeed({ clusterName: 'demo' }));
    expect(seed.subnets.map((s) => s.availabilityZone)).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    expect(seed.subnets[0]!.tags).toMatchObject({
      'kubernetes.io/role/elb': '1',
      'kubernetes.io/cluster/demo': 'owned',
    });
  });

  it('names the file, field path and value of a shape error', () => {
    const error = failure(
      { ...emptyAccountSeed(), instances: [{}, { privateIpAddress: '10.0.1' }] },
      'scenario.yaml',
    );
    expect(error.code).toBe('UP-AWS-SEED-INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.location).toMatchObject({
      file: 'scenario.yaml',
      field: 'instances[1].privateIpAddress',
      value: '10.0.1',
    });
    expect(error.message).toContain('scenario.yaml');
  });

  it('reports a misspelt field by name', () => {
    const error = failure({ instances: [{ subnetID: 'x' }] });
    expect(error.location).toMatchObject({ field: 'instances[0].subnetID', value: 'subnetID' });
    expect(error.hint).toMatch(/misspelt/);
  });

  it('never echoes a secret key', () => {
    const error = failure({
      accessKeys: [{ accessKeyId: 'AKIAEXAMPLE00000001', secretAccessKey: '', principal: { type: 'admin' } }],
    });
    expect(error.location?.value).toBe('<redacted>');
  });

  it('rejects references to undeclared resources', () => {
    const base = emptyAccountSeed();
    expect(
      failure({ ...base, instances: [{ subnetId: 'subnet-0123456789abcdef0' }] }).location,
    ).toMatchObject({
      field: 'instances[0].subnetId',
    });
    expect(failure({ ...base, instances: [{ iamInstanceProfile: 'nope' }] }).code).toBe(
      'UP-AWS-SEED-REFERENCE',
    );
    expect(failure({ roles: [{ name: 'r', attachedPolicies: ['missing'] }] }).location?.field).toBe(
      'roles[0].attachedPolicies[0]',
    );
    expect(failure({ instanceProfiles: [{ name: 'p', roles: ['ghost'] }] }).location?.field).toBe(
      'instanceProfiles[0].roles[0]',
    );
  });

  it('rejects an instance whose zone disagrees with its subnet', () => {
    const error = failure({
      ...emptyAccountSeed(),
      instances: [{ subnetId: EMPTY_ACCOUNT_IDS.subnets[0], availabilityZone: 'us-east-1b' }],
    });
    expect(error.message).toContain('us-east-1a');
  });

  it('rejects duplicate ids and names', () => {
    const base = emptyAccountSeed();
    const id = 'i-0123456789abcdef0';
    expect(failure({ ...base, instances: [{ id }, { id }] }).location?.field).toBe('instances[1].id');
    expect(failure({ roles: [{ name: 'Node' }, { name: 'node' }] }).location?.field).toBe('roles[1].name');
  });

  it('needs a VPC id when there is not exactly one VPC', () => {
    expect(
      failure({ subnets: [{ cidrBlock: '10.0.0.0/24', availabilityZone: 'us-east-1a' }] }).location?.field,
    ).toBe('subnets[0].vpcId');
  });

  it('checks DHCP options: a declared set, default, or a located error', () => {
    const vpc = { id: 'vpc-0123456789abcdef0', cidrBlock: '10.0.0.0/16' };
    const dopt = 'dopt-0123456789abcdef0';
    const seed = parseAwsSeed({
      dhcpOptions: [{ id: dopt, domainName: 'corp.example.com' }],
      vpcs: [{ ...vpc, dhcpOptionsId: dopt }],
    });
    expect(seed.dhcpOptions[0]).toMatchObject({
      domainName: 'corp.example.com',
      domainNameServers: ['AmazonProvidedDNS'],
    });
    expect(parseAwsSeed({ vpcs: [{ ...vpc, dhcpOptionsId: 'default' }] }).vpcs[0]!.dhcpOptionsId).toBe(
      'default',
    );
    const undeclared = failure({ vpcs: [{ ...vpc, dhcpOptionsId: dopt }] }, 'seed.yaml');
    expect(undeclared).toMatchObject({
      code: 'UP-AWS-SEED-REFERENCE',
      location: { file: 'seed.yaml', field: 'vpcs[0].dhcpOptionsId', value: dopt },
    });
    expect(failure({ dhcpOptions: [{ domainName: 'Corp Example' }] }).location).toMatchObject({
      field: 'dhcpOptions[0].domainName',
      value: 'Corp Example',
    });
  });
});
