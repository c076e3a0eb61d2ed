import AWS from 'aws-sdk';
import { expect, it } from 'vitest';
import type { V2Account } from './twin-accounts.js';

/**
 * Instance metadata through v2's `AWS.MetadataService` (its own IMDSv2 token handling) and
 * `AWS.EC2MetadataCredentials`, pointed at each node's own endpoint (`host`: address and port; v2 builds the path itself).
 */
export function imdsConformance(account: () => V2Account): void {
  const request = (service: AWS.MetadataService, path: string) =>
    new Promise<string>((resolve, reject) =>
      service.request(path, (error, data) => (error ? reject(error) : resolve(data))),
    );

  it("reads every node's own metadata and role credentials with MetadataService", async () => {
    const a = account();
    for (const id of a.instanceIds) {
      const endpoint = await a.twin.aws.openInstanceImds(id);
      const md = new AWS.MetadataService({ host: new URL(endpoint).host, httpOptions: { timeout: 5000 } });
      expect(await request(md, '/latest/meta-data/instance-id')).toBe(id);
      const identity = JSON.parse(await request(md, '/latest/dynamic/instance-identity/document')) as {
        instanceId: string;
        region: string;
      };
      expect(identity).toMatchObject({ instanceId: id, region: a.twin.aws.region });
      const role = (await request(md, '/latest/meta-data/iam/security-credentials/')).trim();
      expect(role).toBe(a.twin.aws.state.instanceRoleName(id));
    }
  });

  it("signs as the node's role with EC2MetadataCredentials", async () => {
    const a = account();
    const id = a.instanceIds[0]!;
    const endpoint = await a.twin.aws.openInstanceImds(id);
    // The credentials pass their options on to their MetadataService, `host` included (untyped in v2's .d.ts).
    const options: ConstructorParameters<typeof AWS.EC2MetadataCredentials>[0] & { host: string } = {
      host: new URL(endpoint).host,
      httpOptions: { timeout: 5000 },
      maxRetries: 0,
    };
    const credentials = new AWS.EC2MetadataCredentials(options);
    await credentials.getPromise();
    expect(credentials.accessKeyId).toMatch(/^ASIA/);
    const sts = new AWS.STS({
      endpoint: a.twin.aws.url,
      region: a.twin.aws.region,
      credentials,
      maxRetries: 0,
    });
    const me = await sts.getCallerIdentity({}).promise();
    expect(me.Arn).toBe(
      `arn:aws:sts::${a.twin.aws.accountId}:assumed-role/${a.twin.aws.state.instanceRoleName(id)}/${id}`,
    );
    const ec2 = new AWS.EC2({
      endpoint: a.twin.aws.url,
      region: a.twin.aws.region,
      credentials,
      maxRetries: 0,
    });
    const out = await ec2.describeInstances({ InstanceIds: [id] }).promise();
    expect(out.Reservations?.[0]?.Instances?.[0]?.InstanceId).toBe(id);
    const refused = await ec2
      .terminateInstances({ InstanceIds: [id] })
      .promise()
      .then(
        () => undefined,
        (e: AWS.AWSError) => e,
      );
    expect(refused?.code).toBe('UnauthorizedOperation');
  });
}
