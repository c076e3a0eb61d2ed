/**
 * `uproot snapshot` against a twin that refuses every write of the person running it (read-only: it still
 * succeeds, and nothing was refused), `--summary`, a snapshot of the twin replayed as that twin (round trip:
 * a snapshot of the replay records the same cluster), and a hand-edited file's located error (exit 2).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTagsCommand,
  DescribeInstancesCommand,
  DescribeSubnetsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import {
  CreateListenerCommand,
  CreateLoadBalancerCommand,
  CreateTargetGroupCommand,
  DescribeListenersCommand,
  DescribeLoadBalancersCommand,
  DescribeTargetGroupsCommand,
  DescribeTargetHealthCommand,
  ElasticLoadBalancingV2Client,
  RegisterTargetsCommand,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import { awsEnvironment } from '../../../packages/sandbox/src/aws/index.js';
import { refuseWrites } from '../../../packages/sandbox/src/twin/read-only.js';
import { R } from '../../../packages/sandbox/src/twin/kube/twin-kube.js';
import { startReliabilityTwin, type ReliabilityTwin } from '../reliability/harness.js';

let original: ReliabilityTwin;
let dir: string;

async function cli(sb: ReliabilityTwin, args: readonly string[]) {
  const io = recordingIo({
    cwd: dir,
    env: { PATH: process.env.PATH, ...awsEnvironment(sb.twin.aws), AWS_EC2_METADATA_DISABLED: 'true' },
  });
  Object.assign(io, { clock: sb.clock });
  const code = await runCli(args, io);
  return { code, out: io.stdoutText, err: io.stderrText };
}

function flags(sb: ReliabilityTwin): string[] {
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

function clientConfig(sb: ReliabilityTwin) {
  const aws = sb.twin.aws;
  return { endpoint: aws.url, region: aws.region, credentials: aws.adminCredentials };
}

/**
 * What the twin does not have on its own: a hand-made NLB (an ELBv2 load balancer no Service owns) with a TCP
 * listener forwarding to an instance target group of two workers, and a CSIDriver object.
 */
async function addNlbAndCsiDriver(sb: ReliabilityTwin): Promise<void> {
  const ec2 = new EC2Client(clientConfig(sb));
  const elbv2 = new ElasticLoadBalancingV2Client(clientConfig(sb));
  try {
    const subnets = (await ec2.send(new DescribeSubnetsCommand({}))).Subnets ?? [];
    const reservations = (await ec2.send(new DescribeInstancesCommand({}))).Reservations ?? [];
    const instances = reservations.flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId!);
    const lb = await elbv2.send(
      new CreateLoadBalancerCommand({
        Name: 'ingress-nlb',
        Type: 'network',
        Scheme: 'internal',
        Subnets: subnets.map((s) => s.SubnetId!),
        Tags: [{ Key: 'team', Value: 'edge' }],
      }),
    );
    const tg = await elbv2.send(
      new CreateTargetGroupCommand({
        Name: 'ingress-tcp',
        Protocol: 'TCP',
        Port: 30443,
        VpcId: subnets[0]!.VpcId!,
        TargetType: 'instance',
      }),
    );
    const tgArn = tg.TargetGroups![0]!.TargetGroupArn!;
    await elbv2.send(
      new RegisterTargetsCommand({
        TargetGroupArn: tgArn,
        Targets: instances.slice(-2).map((Id) => ({ Id, Port: 30443 })),
      }),
    );
    await elbv2.send(
      new CreateListenerCommand({
        LoadBalancerArn: lb.LoadBalancers![0]!.LoadBalancerArn!,
        Port: 443,
        Protocol: 'TCP',
        DefaultActions: [{ Type: 'forward', TargetGroupArn: tgArn }],
      }),
    );
  } finally {
    ec2.destroy();
    elbv2.destroy();
  }
  // A Service the in-tree provider gives an NLB (its annotation): the twin's service controller makes it.
  sb.twin.kube.create(R.services, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'edge',
      namespace: 'default',
      annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' },
    },
    spec: { type: 'LoadBalancer', selector: { app: 'edge' }, ports: [{ port: 443, targetPort: 8443 }] },
  });
  await nlbHostname(sb);
  sb.twin.kube.create(R.csidrivers, {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIDriver',
    metadata: { name: 'efs.csi.aws.com' },
    spec: { attachRequired: false },
  });
}

/** The `edge` Service's NLB hostname, once the twin's service controller has set it (virtual time moves on). */
async function nlbHostname(sb: ReliabilityTwin): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const status = sb.twin.kube.get(R.services, 'default', 'edge')?.status as
      { loadBalancer?: { ingress?: { hostname?: string }[] } } | undefined;
    const hostname = status?.loadBalancer?.ingress?.[0]?.hostname;
    if (hostname) return hostname;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the edge Service got no load balancer:\n${sb.explain(40)}`);
}

/** The NLB as a person would see it through the ELBv2 API: listeners, target groups, targets, DNS name. */
async function nlbView(sb: ReliabilityTwin) {
  const elbv2 = new ElasticLoadBalancingV2Client(clientConfig(sb));
  try {
    const lbs = (await elbv2.send(new DescribeLoadBalancersCommand({ Names: ['ingress-nlb'] })))
      .LoadBalancers!;
    const lb = lbs[0]!;
    const listeners = (
      await elbv2.send(new DescribeListenersCommand({ LoadBalancerArn: lb.LoadBalancerArn }))
    ).Listeners!;
    const groups = (
      await elbv2.send(new DescribeTargetGroupsCommand({ LoadBalancerArn: lb.LoadBalancerArn }))
    ).TargetGroups!;
    const targets = (
      await elbv2.send(new DescribeTargetHealthCommand({ TargetGroupArn: groups[0]!.TargetGroupArn }))
    ).TargetHealthDescriptions!.map((t) => `${t.Target!.Id}:${t.Target!.Port}`);
    const groupName = new Map(groups.map((g) => [g.TargetGroupArn, g.TargetGroupName]));
    return {
      dnsName: lb.DNSName,
      type: lb.Type,
      scheme: lb.Scheme,
      listeners: listeners.map((l) => [
        l.Port,
        l.Protocol,
        groupName.get(l.DefaultActions![0]!.TargetGroupArn),
      ]),
      groups: groups.map((g) => [g.TargetGroupName, g.Protocol, g.Port, g.TargetType]),
      targets: targets.sort(),
    };
  } finally {
    elbv2.destroy();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'uproot-snapshot-rt-'));
  original = await startReliabilityTwin('rke2-intree');
  await addNlbAndCsiDriver(original);
}, 180_000);

afterAll(async () => {
  await original?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The record without what differs by construction: when and from where it was taken. */
function recordOf(file: string): Record<string, unknown> {
  const doc = parse(readFileSync(file, 'utf8')) as { snapshot: Record<string, unknown> } & Record<
    string,
    unknown
  >;
  const { takenAt: _t, source: _s, ...snapshot } = doc.snapshot;
  const aws = snapshot.aws as { loadBalancers: { name: string }[] };
  // A replayed load balancer is named after its new Service's uid (as the in-tree provider names it); its DNS
  // name, tags, listeners and instances are the recorded ones.
  for (const lb of aws.loadBalancers) lb.name = '(named after its Service)';
  const groups = (snapshot.aws as { securityGroups: { groupName: string }[] }).securityGroups;
  for (const g of groups) if (g.groupName.startsWith('k8s-elb-')) g.groupName = 'k8s-elb-(its load balancer)';
  // Leases are renewed as the managers run: who holds them is the record, not when they last renewed.
  const kube = snapshot.kubernetes as { leases: { renewTime?: string }[] };
  for (const l of kube.leases) delete l.renewTime;
  const { description: _d, ...rest } = doc;
  return { ...rest, snapshot };
}

describe('uproot snapshot, read-only, and its round trip', () => {
  const file = () => join(dir, 'twin.yaml');

  it('succeeds against a twin that refuses every write, attempting none; --summary says what and how big', async () => {
    const sts = new STSClient(clientConfig(original));
    const caller = (await sts.send(new GetCallerIdentityCommand({}))).Arn!;
    sts.destroy();
    const readOnly = refuseWrites(original.twin, { kubeUser: 'admin', awsCaller: caller });
    try {
      // The mode refuses writes for real: an AWS write and a Kubernetes write by the same person fail.
      const ec2 = new EC2Client(clientConfig(original));
      await expect(
        ec2.send(new CreateTagsCommand({ Resources: ['vpc-00000000'], Tags: [{ Key: 'k', Value: 'v' }] })),
      ).rejects.toMatchObject({ name: 'AccessDenied' });
      ec2.destroy();
      const denied = await cli(original, ['rollback', '--yes', ...flags(original)]);
      expect(denied.code).not.toBe(0);
      const refusedBefore = readOnly.writes();
      expect(refusedBefore).toBeGreaterThan(0);

      const r = await cli(original, ['snapshot', ...flags(original), '--out', file(), '--summary']);
      expect(r.code, r.err).toBe(0);
      expect(readOnly.writes()).toBe(refusedBefore);
      expect(r.out).toContain('6 nodes, 3 LoadBalancer Services');
      expect(r.out).toMatch(/6 instances, 1 VPCs, 3 subnets, 1 route tables/);
      expect(r.out).toContain('4 load balancers');
      // The EBS driver's (the twin runs it) and the one added above.
      expect(r.out).toContain('2 CSI drivers');
      expect(r.out).toContain(`size: ${statSync(file()).size} bytes`);
      // Every part was captured (the twin's API server serves CSIDriver objects).
      expect(r.out).not.toContain('not captured');
    } finally {
      readOnly.remove();
    }
  });

  it('a snapshot of the twin replays as that twin: the replay records the same cluster', async () => {
    const replay = await startReliabilityTwin(file());
    try {
      const again = join(dir, 'replay.yaml');
      const r = await cli(replay, ['snapshot', ...flags(replay), '--out', again]);
      expect(r.code, r.err).toBe(0);
      expect(recordOf(again)).toEqual(recordOf(file()));
      // The NLB is recorded with its listener, target group and targets, and recreated in the emulator.
      const recorded = (
        parse(readFileSync(file(), 'utf8')) as {
          snapshot: { aws: { loadBalancers: { name: string; targetGroups: unknown[] }[] } };
        }
      ).snapshot.aws.loadBalancers.find((lb) => lb.name === 'ingress-nlb');
      expect(recorded?.targetGroups).toHaveLength(1);
      const before = await nlbView(original);
      expect(before.targets).toHaveLength(2);
      expect(await nlbView(replay)).toEqual(before);
      expect(replay.twin.kube.get(R.csidrivers, undefined, 'efs.csi.aws.com')).toBeDefined();
      // The Service's NLB is adopted by the replay's service controller: the same hostname.
      expect(await nlbHostname(replay)).toBe(await nlbHostname(original));
      const v2Names = async (sb: ReliabilityTwin) => {
        const elbv2 = new ElasticLoadBalancingV2Client(clientConfig(sb));
        const lbs = (await elbv2.send(new DescribeLoadBalancersCommand({}))).LoadBalancers ?? [];
        elbv2.destroy();
        return lbs.map((lb) => lb.DNSName).sort();
      };
      // Adopted, not made again: the replay has the original's NLBs and no other.
      expect(await v2Names(replay)).toEqual(await v2Names(original));
    } finally {
      await replay.close();
    }
  }, 180_000);

  it('a hand-edited file with an error is refused with its file, field, value and line, exit 2', async () => {
    const text = readFileSync(file(), 'utf8');
    const bad = join(dir, 'edited.yaml');
    const ip = /privateIpAddress: (\S+)/.exec(text)![1]!;
    writeFileSync(bad, text.replace(`privateIpAddress: ${ip}`, 'privateIpAddress: 10.0.0.x'));
    const r = await cli(original, ['sandbox', 'up', '--scenario', bad]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('UP-SCENARIO-INVALID');
    expect(r.err).toContain('snapshot.aws.instances[0].privateIpAddress');
    expect(r.err).toContain('10.0.0.x');
    expect(r.err).toContain(bad);
    const line = text.split('\n').findIndex((l) => l.includes(`privateIpAddress: ${ip}`)) + 1;
    expect(r.err).toContain(`:${line}`);
  });
});
