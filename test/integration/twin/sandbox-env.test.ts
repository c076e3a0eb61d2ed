/**
 * `uproot sandbox env --node NAME` as a person uses it: eval its output in a shell and read the node's
 * instance metadata with curl, or run a program whose AWS SDK takes the node role's credentials from there.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { loadScenario } from '../../../packages/sandbox/src/scenarios/index.js';
import {
  exposeTwin,
  readSandboxState,
  startTwin,
  type Twin,
} from '../../../packages/sandbox/src/twin/index.js';
import { run } from './support.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = ['--conditions=uproot-source', '--import', 'tsx', join(ROOT, 'packages/uproot/src/cli/main.ts')];
const uproot = (args: readonly string[]) => run(process.execPath, [...CLI, ...args], { cwd: ROOT });

/** The shell a person has after `source aws.env`: the operator's key must not leak into the node's. */
const OPERATOR = {
  PATH: process.env.PATH ?? '',
  AWS_ACCESS_KEY_ID: 'AKIASANDBOXADMIN0000',
  AWS_SECRET_ACCESS_KEY: 'operator-secret',
  AWS_EC2_METADATA_DISABLED: 'true',
};

describe('uproot sandbox env --node', () => {
  let dir: string;
  let twin: Twin;
  let close: () => Promise<void>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'uproot-sandbox-env-'));
    twin = await startTwin({
      scenario: loadScenario('rke2-intree').scenario,
      clock: new VirtualClock(Date.now()),
      dir,
    });
    const served = await exposeTwin(twin, { pid: process.pid, timeScale: 1, onShutdown: () => undefined });
    close = async () => {
      await served.close();
      await twin.close();
    };
  });
  afterAll(async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the node environment as JSON: its endpoint at the root, region, AWS endpoint, no keys', async () => {
    const node = readSandboxState(dir).nodes[1]!;
    const out = await uproot(['sandbox', 'env', '--dir', dir, '--node', node.name, '-o', 'json']);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({
      AWS_EC2_METADATA_SERVICE_ENDPOINT: node.imdsEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_DEFAULT_REGION: 'us-east-1',
      AWS_ENDPOINT_URL: twin.aws.url,
    });
    const byId = await uproot(['sandbox', 'env', '--dir', dir, '--node', node.instanceId, '-o', 'json']);
    expect(JSON.parse(byId.stdout)).toEqual(JSON.parse(out.stdout));
  });

  it.skipIf(!existsSync('/usr/bin/curl') && !existsSync('/bin/curl'))(
    "evaluated in a shell, curl reads the node's instance-id with a token",
    async () => {
      const node = readSandboxState(dir).nodes[4]!;
      const env = await uproot(['sandbox', 'env', '--dir', dir, '--node', node.name]);
      expect(env.code, env.stderr).toBe(0);
      const script = [
        env.stdout,
        'TOKEN=$(curl -sf -X PUT "${AWS_EC2_METADATA_SERVICE_ENDPOINT}latest/api/token" -H "X-aws-ec2-metadata-token-ttl-seconds: 300")',
        'curl -sf -H "X-aws-ec2-metadata-token: $TOKEN" "${AWS_EC2_METADATA_SERVICE_ENDPOINT}latest/meta-data/instance-id"',
        'echo " keys:${AWS_ACCESS_KEY_ID-none}"',
      ].join('\n');
      const shell = await run('sh', ['-c', script], { env: OPERATOR });
      expect(shell.code, shell.stderr).toBe(0);
      expect(shell.stdout).toBe(`${node.instanceId} keys:none\n`);
    },
  );

  it("runs an SDK program with the default credential chain as the node's role", async () => {
    const node = readSandboxState(dir).nodes[0]!;
    const env = await uproot(['sandbox', 'env', '--dir', dir, '--node', node.name]);
    const program = join(dir, 'whoami.mjs');
    writeFileSync(
      program,
      [
        "import { STSClient, GetCallerIdentityCommand } from '@aws-sdk/client-sts';",
        "import { EC2Client, DescribeInstancesCommand } from '@aws-sdk/client-ec2';",
        'const me = await new STSClient({}).send(new GetCallerIdentityCommand({}));',
        'const out = await new EC2Client({}).send(new DescribeInstancesCommand({}));',
        'console.log(me.Arn, out.Reservations.flatMap((r) => r.Instances).length);',
      ].join('\n'),
    );
    const shell = await run(
      'sh',
      ['-c', `${env.stdout}\ncd "${ROOT}" && node --input-type=module < "${program}"`],
      { env: OPERATOR },
    );
    expect(shell.code, shell.stderr).toBe(0);
    expect(shell.stdout.trim()).toBe(
      `arn:aws:sts::${twin.aws.accountId}:assumed-role/${twin.aws.state.instanceRoleName(node.instanceId)}/${node.instanceId} 6`,
    );
  });

  it('names the nodes there are when asked for one that is not', async () => {
    const out = await uproot(['sandbox', 'env', '--dir', dir, '--node', 'nope']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('UP-SANDBOX-NODE');
    expect(out.stderr).toContain(readSandboxState(dir).nodes[0]!.name);
  });
});
