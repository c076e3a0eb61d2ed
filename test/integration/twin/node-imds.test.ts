/**
 * Instance metadata where every IMDS client looks for it (issue 19): each node of each built-in twin has its
 * own endpoint, and a client given only `AWS_EC2_METADATA_SERVICE_ENDPOINT` (the root, no path) reads that
 * node's metadata and role credentials. The SDK's `fromInstanceMetadata` builds its request paths itself and
 * drops any path in the endpoint, so it proves the root serves the instance; its default chain then calls
 * EC2 as the node's role, allowed what the role allows and refused the rest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeInstancesCommand,
  EC2Client,
  ModifyInstanceMetadataOptionsCommand,
} from '@aws-sdk/client-ec2';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { fromInstanceMetadata } from '@aws-sdk/credential-providers';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { nodeEnvironment, NOT_ON_A_NODE } from '../../../packages/sandbox/src/aws/index.js';
import { builtinScenarioNames, loadScenario } from '../../../packages/sandbox/src/scenarios/index.js';
import { exposeTwin, readSandboxState, startTwin } from '../../../packages/sandbox/src/twin/index.js';

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

async function text(response: Response): Promise<string> {
  const body = await response.text();
  expect(response.status, body).toBe(200);
  return body;
}

const scenarios = builtinScenarioNames().filter((name) => name !== 'empty');

describe("each node's instance metadata at the root of its own endpoint", () => {
  it.each(scenarios)(
    '%s: every node gets a token, its own id, identity document and role credentials',
    async (scenario) => {
      const dir = mkdtempSync(join(tmpdir(), `uproot-node-imds-${scenario}-`));
      // Now, so the SDK does not find the role credentials (six hours on this clock) already expired.
      const clock = new VirtualClock(Date.now());
      const twin = await startTwin({ scenario: loadScenario(scenario).scenario, clock, dir });
      const served = await exposeTwin(twin, { pid: process.pid, timeScale: 1, onShutdown: () => undefined });
      try {
        const nodes = readSandboxState(dir).nodes;
        expect(nodes.map((n) => n.instanceId).sort()).toEqual(
          twin.layout.instances.map((i) => i.instanceId).sort(),
        );
        for (const node of nodes) {
          const endpoint = new URL(node.imdsEndpoint);
          expect(endpoint.pathname).toBe('/');
          expect(endpoint.hostname).toMatch(/^127\.\d+\.\d+\.\d+$/);
          const token = await text(
            await fetch(new URL('latest/api/token', endpoint), {
              method: 'PUT',
              headers: { 'x-aws-ec2-metadata-token-ttl-seconds': '300' },
            }),
          );
          const headers = { 'x-aws-ec2-metadata-token': token };
          const get = async (path: string) =>
            text(await fetch(new URL(`latest/${path}`, endpoint), { headers }));
          expect(await get('meta-data/instance-id')).toBe(node.instanceId);
          const identity = JSON.parse(await get('dynamic/instance-identity/document')) as Record<
            string,
            unknown
          >;
          expect(identity).toMatchObject({ instanceId: node.instanceId, region: twin.aws.region });

          // An SDK client that ignores endpoint paths, given nothing but the node's environment.
          for (const name of NOT_ON_A_NODE) delete process.env[name];
          Object.assign(process.env, nodeEnvironment(twin.aws, node.imdsEndpoint));
          const credentials = await fromInstanceMetadata({ maxRetries: 0 })();
          expect(credentials.accessKeyId).toMatch(/^ASIA/);
          const role = twin.aws.state.instanceRoleName(node.instanceId);
          const sts = new STSClient({ maxAttempts: 1, credentials });
          expect((await sts.send(new GetCallerIdentityCommand({}))).Arn).toBe(
            `arn:aws:sts::${twin.aws.accountId}:assumed-role/${role}/${node.instanceId}`,
          );
          sts.destroy();

          // The default chain, no static keys: EC2 as the node's role.
          const ec2 = new EC2Client({ maxAttempts: 1 });
          const own = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [node.instanceId] }));
          expect(own.Reservations?.[0]?.Instances?.[0]?.InstanceId).toBe(node.instanceId);
          const refused = await ec2
            .send(
              new ModifyInstanceMetadataOptionsCommand({
                InstanceId: node.instanceId,
                HttpTokens: 'required',
              }),
            )
            .then(
              () => undefined,
              (error: unknown) => error as { name?: string; message?: string },
            );
          expect(refused?.name, `${role} must not modify metadata options`).toBe('UnauthorizedOperation');
          ec2.destroy();
        }
      } finally {
        await served.close();
        await twin.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
