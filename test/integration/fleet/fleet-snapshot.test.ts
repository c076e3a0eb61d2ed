/**
 * `uproot fleet snapshot --out-dir DIR` on a fleet twin of two RKE2 clusters (one healthy, one missing its
 * cluster tags): one scenario file per downstream cluster, read-only (every write of the people it reads as
 * is refused, and none was attempted), without the twins' tokens or AWS keys, and each file replays as a twin
 * whose preflight gives the verdicts the fleet's preflight gave that cluster.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTagsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { renderKubeconfig } from '../../../packages/sandbox/src/apiserver/kubeconfig.js';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetPreflight } from '../../../packages/uproot/src/toolkit/fleet/index.js';
import { preflight } from '../../../packages/uproot/src/toolkit/preflight.js';
import { awsEnvironment } from '../../../packages/sandbox/src/aws/index.js';
import { refuseWrites, type ReadOnlyTwin } from '../../../packages/sandbox/src/twin/read-only.js';
import type { FaultHandle } from '../../../packages/sandbox/src/apiserver/faults/fault-injector.js';
import { R } from '../../../packages/sandbox/src/twin/kube/twin-kube.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import { startReliabilityTwin } from '../reliability/harness.js';
import { startFleetHarness, type FleetHarness } from './harness.js';

const MEMBERS = [
  { name: 'downstream-01', scenario: 'rke2-intree', labels: { env: 'prod' } },
  { name: 'downstream-02', scenario: 'missing-cluster-tag', labels: { env: 'staging' } },
];

async function callerOf(twin: Twin): Promise<string> {
  const aws = twin.aws;
  const sts = new STSClient({ endpoint: aws.url, region: aws.region, credentials: aws.adminCredentials });
  try {
    return (await sts.send(new GetCallerIdentityCommand({}))).Arn!;
  } finally {
    sts.destroy();
  }
}

function nodeNames(twin: Twin): string[] {
  return twin.kube
    .list(R.nodes)
    .map((n) => n.metadata?.name ?? '')
    .sort();
}

describe('uproot fleet snapshot', () => {
  let h: FleetHarness;
  const readOnly: ReadOnlyTwin[] = [];
  const localFaults: FaultHandle[] = [];
  let out: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    h = await startFleetHarness({ members: MEMBERS });
    // Read-only: downstream writes as Rancher's cluster owner (its kubeconfig Secret), AWS writes of each
    // cluster's account, and writes to Rancher's local cluster as its admin are all refused.
    for (const m of h.fleet.members) {
      readOnly.push(
        refuseWrites(
          { downstream: m.twin.downstream, management: undefined, aws: m.twin.aws },
          { kubeUser: m.twin.identities.clusterOwner.user, awsCaller: await callerOf(m.twin) },
        ),
      );
    }
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'])
      localFaults.push(
        h.fleet.local.faults.add({
          match: { method, user: 'admin', path: /^(?!\/apis\/authorization\.k8s\.io\/)/ },
          action: { type: 'status', code: 403, message: `read-only: ${method} refused` },
        }),
      );
    out = await h.cli([
      'fleet',
      'snapshot',
      '--aws-env-dir',
      h.targets.awsEnvDir,
      '--out-dir',
      'snaps',
      '-o',
      'json',
    ]);
  }, 300_000);

  afterAll(async () => {
    for (const r of readOnly) r.remove();
    for (const f of localFaults) f.remove();
    await h?.close();
  });

  it('the read-only mode refuses writes for real (so the count below means something)', async () => {
    const m = h.fleet.members[0]!;
    const kc = new KubeConfig();
    kc.loadFromString(
      renderKubeconfig(
        [
          m.twin.downstream.kubeconfigEntry(
            { ...m.twin.identities.clusterOwner, name: 'owner' },
            { clusterName: 'c', contextName: 'c' },
          ),
        ],
        'c',
      ),
    );
    await expect(
      kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'probe' } },
      }),
    ).rejects.toMatchObject({ code: 403 });
    const aws = m.twin.aws;
    const ec2 = new EC2Client({ endpoint: aws.url, region: aws.region, credentials: aws.adminCredentials });
    await expect(
      ec2.send(new CreateTagsCommand({ Resources: ['vpc-00000000'], Tags: [{ Key: 'k', Value: 'v' }] })),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
    ec2.destroy();
    expect(readOnly[0]!.writes()).toBe(2);
  });

  it('writes one file per downstream cluster, attempting no write', () => {
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as {
      rows: { cluster: string; type: string; file?: string; nodes?: number }[];
    };
    expect(result.rows.map((r) => [r.cluster, r.type, r.file])).toEqual([
      ['fleet-default/downstream-01', 'written', 'fleet-default/downstream-01.yaml'],
      ['fleet-default/downstream-02', 'written', 'fleet-default/downstream-02.yaml'],
    ]);
    for (const m of h.fleet.members) {
      const file = join(h.dir, 'snaps', 'fleet-default', `${m.spec.name}.yaml`);
      expect(existsSync(file)).toBe(true);
      const doc = parse(readFileSync(file, 'utf8')) as {
        clusterName: string;
        snapshot: { source: { rancherCluster?: string }; kubernetes: { nodes: { name: string }[] } };
      };
      expect(doc.clusterName).toBe(m.spec.name);
      expect(doc.snapshot.source.rancherCluster).toBe(`fleet-default/${m.spec.name}`);
      expect(doc.snapshot.kubernetes.nodes.map((n) => n.name).sort()).toEqual(nodeNames(m.twin));
    }
    // The two probes above are the only refusals.
    expect(readOnly.reduce((n, r) => n + r.writes(), 0)).toBe(2);
    expect(localFaults.reduce((n, f) => n + f.hits(), 0)).toBe(0);
  });

  it('a cluster it cannot find is a row with its error (exit 1); the others are still written', async () => {
    const r = await h.cli([
      'fleet',
      'snapshot',
      '--aws-env-dir',
      h.targets.awsEnvDir,
      '--out-dir',
      'partial',
      '--clusters',
      'downstream-01,nowhere',
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^CLUSTER\s+FILE\s+NODES\s+BYTES\s+NOTES$/m);
    expect(r.stdout).toMatch(/^fleet-default\/nowhere\s+—.*UP-CLUSTER-NOT-FOUND/m);
    expect(r.stdout).toContain('1 of 2 clusters written');
    expect(existsSync(join(h.dir, 'partial', 'fleet-default', 'downstream-01.yaml'))).toBe(true);
  });

  it('the files hold none of the twins’ tokens or AWS keys', () => {
    const kubeconfig = readFileSync(h.fleet.files.kubeconfig, 'utf8');
    const tokens = [...kubeconfig.matchAll(/token: (\S+)/g)].map((m) => m[1]!);
    for (const m of h.fleet.members) {
      const text = readFileSync(join(h.dir, 'snaps', 'fleet-default', `${m.spec.name}.yaml`), 'utf8');
      const secrets = [
        ...tokens,
        m.twin.aws.adminCredentials.accessKeyId,
        m.twin.aws.adminCredentials.secretAccessKey,
        ...Object.values(m.twin.identities).map((i) => i.token),
      ].filter((s) => s.length >= 8);
      expect(secrets.length).toBeGreaterThan(4);
      for (const secret of secrets) expect(text).not.toContain(secret);
      expect(text).not.toMatch(/PRIVATE KEY|aws_secret_access_key|client-key/i);
    }
  });

  it('a cluster’s file replays as a twin with the verdicts the fleet’s preflight gave it', async () => {
    for (const r of readOnly) r.remove();
    readOnly.length = 0;
    const fleet = await fleetPreflight({ ...h.targets, clusters: 'downstream-02' }, h.host, {
      clock: h.clock,
    });
    const row = fleet.rows[0]!;
    if (row.type !== 'ran') throw new Error(`fleet preflight did not run: ${JSON.stringify(row)}`);
    expect(row.failedChecks).toContain('cluster-tags');
    const replay = await startReliabilityTwin(join(h.dir, 'snaps', 'fleet-default', 'downstream-02.yaml'));
    try {
      const { report: again } = await preflight({
        ...replay.target,
        env: { ...awsEnvironment(replay.twin.aws), AWS_EC2_METADATA_DISABLED: 'true' },
        clock: replay.clock,
      });
      const verdicts = (checks: readonly { id: string; status: string }[]) =>
        Object.fromEntries(checks.map((c) => [c.id, c.status]));
      expect(verdicts(again.checks)).toEqual(verdicts(row.report.checks));
      expect(nodeNames(replay.twin)).toEqual(nodeNames(h.fleet.member('downstream-02')!.twin));
    } finally {
      await replay.close();
    }
  }, 300_000);
});
