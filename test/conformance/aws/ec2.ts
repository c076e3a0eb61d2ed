import { expect, it } from 'vitest';
import type AWS from 'aws-sdk';
import { v2Failure, type V2Account } from './twin-accounts.js';

/** EC2 through v2's ec2 query serializer: filters, paging and its limits, tagging, metadata options. */
export function ec2Conformance(account: () => V2Account): void {
  const instancesOf = (out: AWS.EC2.DescribeInstancesResult) =>
    (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);

  it('filters instances by cluster tag, state, wildcard DNS name and instance id', async () => {
    const { ec2, clusterId, instanceIds } = account();
    const tagged = await ec2
      .describeInstances({
        Filters: [
          { Name: `tag:kubernetes.io/cluster/${clusterId}`, Values: ['owned', 'shared'] },
          { Name: 'instance-state-name', Values: ['running'] },
        ],
      })
      .promise();
    expect(
      instancesOf(tagged)
        .map((i) => i.InstanceId)
        .sort(),
    ).toEqual([...instanceIds].sort());
    const wildcard = await ec2
      .describeInstances({ Filters: [{ Name: 'private-dns-name', Values: ['ip-10-0-0-*'] }] })
      .promise();
    expect(instancesOf(wildcard).length).toBeGreaterThan(0);
    expect(instancesOf(wildcard).every((i) => i.PrivateDnsName?.startsWith('ip-10-0-0-'))).toBe(true);
    const one = await ec2.describeInstances({ InstanceIds: [instanceIds[1]!] }).promise();
    expect(instancesOf(one).map((i) => i.InstanceId)).toEqual([instanceIds[1]]);
    expect(instancesOf(one)[0]).toMatchObject({
      State: { Code: 16, Name: 'running' },
      MetadataOptions: {
        State: 'applied',
        HttpTokens: 'optional',
        HttpPutResponseHopLimit: 1,
        HttpEndpoint: 'enabled',
      },
    });
  });

  it('pages with MaxResults and NextToken until every instance is seen once', async () => {
    const { ec2, instanceIds } = account();
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await ec2
        .describeInstances({ MaxResults: 5, ...(token ? { NextToken: token } : {}) })
        .promise();
      const ids = instancesOf(page).map((i) => i.InstanceId!);
      expect(ids.length).toBeLessThanOrEqual(5);
      seen.push(...ids);
      token = page.NextToken;
      pages++;
    } while (token);
    expect(pages).toBe(Math.ceil(instanceIds.length / 5));
    expect(seen.sort()).toEqual([...instanceIds].sort());
  });

  it('refuses MaxResults outside 5..1000 and together with InstanceIds, with EC2 error codes', async () => {
    const { ec2, instanceIds } = account();
    const low = await v2Failure(ec2.describeInstances({ MaxResults: 4 }));
    expect(low).toMatchObject({ code: 'InvalidParameterValue', statusCode: 400 });
    expect(low.message).toBe(
      'Value ( 4 ) for parameter maxResults is invalid. Expecting a value greater than 5.',
    );
    const high = await v2Failure(ec2.describeInstances({ MaxResults: 1001 }));
    expect(high).toMatchObject({ code: 'InvalidParameterValue' });
    expect(high.message).toBe(
      'Value ( 1001 ) for parameter maxResults is invalid. Expecting a value less than 1000.',
    );
    const both = await v2Failure(ec2.describeInstances({ MaxResults: 5, InstanceIds: [instanceIds[0]!] }));
    expect(both).toMatchObject({
      code: 'InvalidParameterCombination',
      message: 'The parameter instancesSet cannot be used with the parameter maxResults',
    });
    expect(
      await v2Failure(ec2.describeInstances({ Filters: [{ Name: 'bogus', Values: ['x'] }] })),
    ).toMatchObject({
      code: 'InvalidParameterValue',
      message: "The filter 'bogus' is invalid",
    });
    expect(await v2Failure(ec2.describeInstances({ InstanceIds: ['i-0123456789abcdef0'] }))).toMatchObject({
      code: 'InvalidInstanceID.NotFound',
    });
    expect(await v2Failure(ec2.describeInstances({ InstanceIds: ['i-nope'] }))).toMatchObject({
      code: 'InvalidInstanceID.Malformed',
    });
  });

  it('creates, finds, pages and deletes tags (CreateTags, DescribeTags, DeleteTags)', async () => {
    const { ec2, instanceIds } = account();
    const target = instanceIds[0]!;
    await ec2
      .createTags({
        Resources: [target],
        Tags: [
          { Key: 'conformance/a', Value: '1' },
          { Key: 'conformance/b', Value: '2' },
        ],
      })
      .promise();
    const found = await ec2
      .describeTags({
        Filters: [
          { Name: 'resource-id', Values: [target] },
          { Name: 'key', Values: ['conformance/*'] },
        ],
      })
      .promise();
    expect(found.Tags).toEqual([
      { Key: 'conformance/a', ResourceId: target, ResourceType: 'instance', Value: '1' },
      { Key: 'conformance/b', ResourceId: target, ResourceType: 'instance', Value: '2' },
    ]);
    const first = await ec2
      .describeTags({ Filters: [{ Name: 'resource-type', Values: ['instance'] }], MaxResults: 5 })
      .promise();
    expect(first.Tags).toHaveLength(5);
    expect(first.NextToken).toBeTruthy();
    // A value that does not match leaves the tag; no value removes it whatever its value.
    await ec2.deleteTags({ Resources: [target], Tags: [{ Key: 'conformance/a', Value: 'other' }] }).promise();
    await ec2.deleteTags({ Resources: [target], Tags: [{ Key: 'conformance/b' }] }).promise();
    const left = await ec2
      .describeTags({
        Filters: [
          { Name: 'resource-id', Values: [target] },
          { Name: 'key', Values: ['conformance/*'] },
        ],
      })
      .promise();
    expect(left.Tags?.map((t) => t.Key)).toEqual(['conformance/a']);
    await ec2.deleteTags({ Resources: [target], Tags: [{ Key: 'conformance/a' }] }).promise();
    expect(await v2Failure(ec2.describeTags({ MaxResults: 4 }))).toMatchObject({
      code: 'InvalidParameterValue',
    });
  });

  it('changes metadata options (ModifyInstanceMetadataOptions) and reports them back', async () => {
    const { ec2, instanceIds } = account();
    const id = instanceIds[instanceIds.length - 1]!;
    const out = await ec2
      .modifyInstanceMetadataOptions({ InstanceId: id, HttpTokens: 'required', HttpPutResponseHopLimit: 2 })
      .promise();
    expect(out).toMatchObject({
      InstanceId: id,
      InstanceMetadataOptions: { State: 'pending', HttpTokens: 'required', HttpPutResponseHopLimit: 2 },
    });
    const after = await ec2
      .describeInstances({ Filters: [{ Name: 'metadata-options.http-tokens', Values: ['required'] }] })
      .promise();
    expect(instancesOf(after).map((i) => i.InstanceId)).toContain(id);
    await ec2
      .modifyInstanceMetadataOptions({ InstanceId: id, HttpTokens: 'optional', HttpPutResponseHopLimit: 1 })
      .promise();
    expect(
      await v2Failure(ec2.modifyInstanceMetadataOptions({ InstanceId: id, HttpPutResponseHopLimit: 65 })),
    ).toMatchObject({ code: 'InvalidParameterValue' });
  });
}
