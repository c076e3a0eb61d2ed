/**
 * Issue 27's done-when: on the rke2-intree twin with defects injected (subnets tagged for another cluster, the
 * control-plane profile's IAM actions stripped, a stray Node with no instance, a custom label on one node),
 * `uproot snapshot --context … --rancher-context … --cluster … --out FILE` writes a scenario file whose twin
 * (what `uproot sandbox up --scenario FILE` starts) gives the same preflight verdict per check, the same
 * `migrate --dry-run -o json` step ids, the same node names, labels and taints, the same LoadBalancer
 * hostnames and the same AWS tags; and the file holds none of the original twin's secrets.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTagsCommand, DeleteTagsCommand, DescribeSubnetsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { CreatePolicyVersionCommand, IAMClient, ListPoliciesCommand } from '@aws-sdk/client-iam';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import { awsEnvironment } from '../../../packages/sandbox/src/aws/index.js';
import { R } from '../../../packages/sandbox/src/twin/kube/twin-kube.js';
import { startReliabilityTwin, type ReliabilityTwin } from '../reliability/harness.js';

let original: ReliabilityTwin;
let replay: ReliabilityTwin | undefined;
let dir: string;
let file: string;

const STRAY = 'ip-10-0-250-250.ec2.internal';

function envOf(sb: ReliabilityTwin): Record<string, string | undefined> {
  return { PATH: process.env.PATH, ...awsEnvironment(sb.twin.aws), AWS_EC2_METADATA_DISABLED: 'true' };
}

async function cli(sb: ReliabilityTwin, args: readonly string[]) {
  const io = recordingIo({ cwd: dir, env: envOf(sb) });
  Object.assign(io, { clock: sb.clock });
  const code = await runCli(args, io);
  return { code, out: io.stdoutText, err: io.stderrText };
}

function targetFlags(sb: ReliabilityTwin): string[] {
  const t = sb.target;
  return [
    '--kubeconfig',
    t.kubeconfig!,
    '--context',
    t.context!,
    '--rancher-context',
    t.rancherContext!,
    '--cluster',
    t.cluster!,
  ];
}

async function verdicts(sb: ReliabilityTwin): Promise<Record<string, string>> {
  const r = await cli(sb, ['preflight', ...targetFlags(sb), '-o', 'json']);
  expect(r.err).not.toContain('UP-');
  const report = JSON.parse(r.out) as { checks: { id: string; status: string }[] };
  return Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
}

async function stepIds(sb: ReliabilityTwin): Promise<string[]> {
  const r = await cli(sb, ['migrate', '--dry-run', '-o', 'json', ...targetFlags(sb)]);
  const doc = JSON.parse(r.out) as { outcome: string; plan?: { steps: { id: string }[] } };
  expect(doc.outcome, r.out + r.err).toBe('dry-run');
  return doc.plan!.steps.map((s) => s.id);
}

/** `uproot plan` with migrate's connection flags: the live cluster's plan (issue 27 part 4). */
async function livePlanSteps(sb: ReliabilityTwin): Promise<string[]> {
  const r = await cli(sb, ['plan', '-o', 'json', ...targetFlags(sb)]);
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { steps: { id: string }[] }).steps.map((s) => s.id);
}

interface NodeView {
  name: string;
  labels: Record<string, string>;
  taints: unknown[];
}

function nodes(sb: ReliabilityTwin): NodeView[] {
  return sb.twin.kube
    .list(R.nodes)
    .map((n) => ({
      name: n.metadata?.name ?? '',
      labels: { ...(n.metadata?.labels ?? {}) },
      taints: ((n.spec as { taints?: unknown[] } | undefined)?.taints ?? []).map((t) => ({
        ...(t as object),
      })),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function lbHostnames(sb: ReliabilityTwin): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const s of sb.twin.kube.list(R.services)) {
    const status = s.status as { loadBalancer?: { ingress?: { hostname?: string }[] } } | undefined;
    const hostnames = (status?.loadBalancer?.ingress ?? []).map((i) => i.hostname ?? '');
    if (hostnames.length > 0) out[`${s.metadata?.namespace}/${s.metadata?.name}`] = hostnames;
  }
  return out;
}

async function subnetTags(sb: ReliabilityTwin): Promise<Record<string, Record<string, string>>> {
  const ec2 = new EC2Client({ ...clientConfig(sb) });
  try {
    const out = await ec2.send(new DescribeSubnetsCommand({}));
    return Object.fromEntries(
      (out.Subnets ?? []).map((s) => [
        s.SubnetId!,
        Object.fromEntries((s.Tags ?? []).map((t) => [t.Key!, t.Value ?? ''])),
      ]),
    );
  } finally {
    ec2.destroy();
  }
}

function clientConfig(sb: ReliabilityTwin) {
  const aws = sb.twin.aws;
  return {
    endpoint: aws.url,
    region: aws.region,
    credentials: aws.adminCredentials,
  };
}

/** The four defects of the issue, through the APIs a person would use (EC2, IAM, the Kubernetes store). */
async function injectDefects(sb: ReliabilityTwin): Promise<void> {
  const ec2 = new EC2Client(clientConfig(sb));
  const iam = new IAMClient(clientConfig(sb));
  try {
    const subnets = (await ec2.send(new DescribeSubnetsCommand({}))).Subnets ?? [];
    const ids = subnets.map((s) => s.SubnetId!);
    await ec2.send(new DeleteTagsCommand({ Resources: ids, Tags: [{ Key: 'kubernetes.io/cluster/demo' }] }));
    await ec2.send(
      new CreateTagsCommand({
        Resources: ids,
        Tags: [{ Key: 'kubernetes.io/cluster/other', Value: 'owned' }],
      }),
    );
    const policies = (await iam.send(new ListPoliciesCommand({ Scope: 'Local' }))).Policies ?? [];
    const cp = policies.find((p) => p.PolicyName === 'demo-control-plane-policy')!;
    await iam.send(
      new CreatePolicyVersionCommand({
        PolicyArn: cp.Arn,
        SetAsDefault: true,
        PolicyDocument: JSON.stringify({
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: ['ec2:DescribeInstances'], Resource: '*' }],
        }),
      }),
    );
  } finally {
    ec2.destroy();
    iam.destroy();
  }
  const kube = sb.twin.kube;
  kube.create(R.nodes, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: STRAY, labels: { 'kubernetes.io/hostname': STRAY } },
    spec: {},
  });
  kube.mutateStatus(R.nodes, undefined, STRAY, (draft) => {
    draft.status = {
      addresses: [{ type: 'InternalIP', address: '10.0.250.250' }],
      conditions: [{ type: 'Ready', status: 'True' }],
      nodeInfo: { kubeletVersion: 'v1.26.15+rke2r1' },
    };
    return draft;
  });
  const worker = kube
    .list(R.nodes)
    .find((n) => !('node-role.kubernetes.io/control-plane' in (n.metadata?.labels ?? {})))!;
  kube.mutate(R.nodes, undefined, worker.metadata!.name!, (draft) => {
    draft.metadata = { ...draft.metadata, labels: { ...draft.metadata?.labels, team: 'payments' } };
    return draft;
  });
}

interface Observed {
  verdicts: Record<string, string>;
  steps: string[];
  planSteps: string[];
  nodes: NodeView[];
  hostnames: Record<string, string[]>;
  subnetTags: Record<string, Record<string, string>>;
}

async function observe(sb: ReliabilityTwin): Promise<Observed> {
  return {
    verdicts: await verdicts(sb),
    steps: await stepIds(sb),
    planSteps: await livePlanSteps(sb),
    nodes: nodes(sb),
    hostnames: lbHostnames(sb),
    subnetTags: await subnetTags(sb),
  };
}

let before: Observed;
let after: Observed;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'uproot-snapshot-'));
  file = join(dir, 'my-cluster.yaml');
  original = await startReliabilityTwin('rke2-intree');
  await injectDefects(original);
  before = await observe(original);
  const r = await cli(original, ['snapshot', ...targetFlags(original), '--out', file]);
  expect(r.code, r.err).toBe(0);
  replay = await startReliabilityTwin(file);
  after = await observe(replay);
}, 300_000);

afterAll(async () => {
  await replay?.close();
  await original?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('uproot snapshot of the rke2-intree twin with defects, replayed as a twin', () => {
  it('the defects show on the original (so the comparison below is about something)', () => {
    expect(before.verdicts['lb-subnets']).not.toBe('pass');
    expect(before.verdicts['iam-control-plane']).toBe('fail');
    expect(before.nodes.map((n) => n.name)).toContain(STRAY);
    expect(before.nodes.some((n) => n.labels.team === 'payments')).toBe(true);
  });

  it('preflight gives the same verdict for every check', () => {
    expect(after.verdicts).toEqual(before.verdicts);
  });

  it('migrate --dry-run -o json gives the same step ids', () => {
    expect(before.steps.length).toBeGreaterThan(3);
    expect(after.steps).toEqual(before.steps);
  });

  it('a live `uproot plan --context … --rancher-context … --cluster …` plans what migrate --dry-run plans', () => {
    expect(before.planSteps).toEqual(before.steps);
    expect(after.planSteps).toEqual(after.steps);
  });

  it('node names, labels and taints are the same', () => {
    expect(after.nodes).toEqual(before.nodes);
  });

  it('LoadBalancer hostnames and subnet tags are the same', () => {
    expect(Object.keys(before.hostnames).length).toBe(2);
    expect(after.hostnames).toEqual(before.hostnames);
    expect(after.subnetTags).toEqual(before.subnetTags);
  });

  it('the file holds no AWS secret key, token or client key of the original', () => {
    const text = readFileSync(file, 'utf8');
    const aws = original.twin.aws.adminCredentials;
    const secrets = [
      aws.secretAccessKey,
      aws.accessKeyId,
      ...Object.values(original.twin.identities).map((i) => (i as { token?: string }).token ?? ''),
    ].filter((s) => s.length >= 8);
    expect(secrets.length).toBeGreaterThan(2);
    for (const secret of secrets) expect(text).not.toContain(secret);
    const kubeconfig = readFileSync(original.target.kubeconfig!, 'utf8');
    for (const m of kubeconfig.matchAll(/(?:token|client-key-data|client-certificate-data): (\S+)/g))
      expect(text).not.toContain(m[1]!);
    expect(text).not.toMatch(/PRIVATE KEY|aws_secret_access_key|client-key/i);
  });
});
