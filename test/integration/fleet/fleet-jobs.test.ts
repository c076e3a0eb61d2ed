import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../../packages/uproot/src/adapters/kube/kube-client.js';
import { KubeObjects } from '../../../packages/uproot/src/adapters/kube/kube-objects.js';
import { hasApiStatus } from '../../../packages/uproot/src/engine/ports.js';
import { isRecord, metaOf } from '../../../packages/sandbox/src/twin/kube/kube-types.js';
import { R } from '../../../packages/sandbox/src/twin/kube/twin-kube.js';
import { startFleetHarness, type FleetHarness } from './harness.js';

/**
 * `uproot fleet migrate --as-jobs` rehearsed, not mocked: the fleet twin's local cluster runs each Job's pod as
 * a local process of the uproot CLI, on the twin's virtual clock, authenticated by a projected service-account
 * token and held to the Role uproot made. One pod is killed with SIGKILL in the middle of a step.
 */
const members = [
  { name: 'downstream-01', scenario: 'rke2-intree', labels: { env: 'prod' } },
  { name: 'downstream-02', scenario: 'rke2-intree', labels: { env: 'prod' } },
  { name: 'downstream-03', scenario: 'missing-cluster-tag', labels: { env: 'prod' } },
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('uproot fleet migrate --as-jobs on the fleet twin', () => {
  let h: FleetHarness;
  let migrated: { code: number; stdout: string; stderr: string };
  let killed: { pod: string; step: string } | undefined;

  beforeAll(async () => {
    h = await startFleetHarness({ members });
    const kube = h.fleet.localKube;
    // SIGKILL downstream-01's pod while Rancher rolls out switch-to-external (the step applied, its gate waiting).
    const stop = kube.watch(R.configmaps, (e) => {
      if (killed || metaOf(e.object).name !== 'uproot-migration-downstream-01') return;
      const data = isRecord(e.object.data) ? e.object.data : {};
      const step = JSON.parse(String(data['step.switch-to-external.json'] ?? '{}')) as { state?: string };
      if (step.state !== 'verifying') return;
      const pod = kube
        .list(R.pods, {
          namespace: 'uproot-system',
          labelSelector: 'batch.kubernetes.io/job-name=uproot-downstream-01',
        })
        .map((p) => metaOf(p))
        .find((m) => !m.deletionTimestamp);
      const running = pod && h.fleet.pods.get('uproot-system', pod.name!);
      if (!running) return;
      killed = { pod: pod.name!, step: 'switch-to-external' };
      running.kill('SIGKILL');
    });
    migrated = await h.cli([
      'fleet',
      'migrate',
      '--as-jobs',
      '--yes',
      '--parallel',
      '2',
      '--max-failures',
      '2',
      '--image',
      'uproot:test',
      '--aws-env-dir',
      h.targets.awsEnvDir,
      '-o',
      'json',
    ]);
    stop();
  }, 600_000);
  afterAll(async () => h?.close());

  it('migrates the clusters that pass preflight, one Job each, and skips the one that fails', () => {
    expect(migrated.code, migrated.stderr.slice(-3000)).toBe(1); // downstream-03 was refused
    const rows = JSON.parse(migrated.stdout).rows as {
      cluster: string;
      outcome: { type: string };
      job?: string;
    }[];
    expect(rows.map((r) => [r.cluster, r.outcome.type, r.job])).toEqual([
      ['fleet-default/downstream-01', 'migrated', 'uproot-downstream-01'],
      ['fleet-default/downstream-02', 'migrated', 'uproot-downstream-02'],
      ['fleet-default/downstream-03', 'preflight-failed', undefined],
    ]);
    expect(h.fleet.localKube.get(R.jobs, 'uproot-system', 'uproot-downstream-03')).toBeUndefined();
  });

  it('replaces the killed pod, and the new pod resumes that cluster to the same end state', async () => {
    expect(killed?.step).toBe('switch-to-external');
    const job = h.fleet.localKube.get(R.jobs, 'uproot-system', 'uproot-downstream-01')!;
    const status = job.status as {
      failed: number;
      succeeded: number;
      conditions: { type: string; status: string }[];
    };
    expect(status).toMatchObject({ failed: 1, succeeded: 1, active: 0 });
    expect(status.conditions.filter((c) => c.status === 'True').map((c) => c.type)).toEqual(
      expect.arrayContaining(['SuccessCriteriaMet', 'Complete']),
    );
    const pods = h.fleet.localKube.list(R.pods, {
      namespace: 'uproot-system',
      labelSelector: 'batch.kubernetes.io/job-name=uproot-downstream-01',
    });
    expect(pods.map((p) => (p.status as { phase: string }).phase).sort()).toEqual(['Failed', 'Succeeded']);
    const killedPod = pods.find((p) => metaOf(p).name === killed?.pod)!;
    expect(JSON.stringify(killedPod.status)).toContain('"exitCode":137');
    // The journal shows the second pod resuming, every step verified once.
    const journal = JSON.parse(
      String(
        (
          h.fleet.localKube.get(R.configmaps, 'fleet-default', 'uproot-migration-downstream-01')!
            .data as Record<string, string>
        )['journal.json'],
      ),
    ) as { runs: { resumed: boolean }[] };
    expect(journal.runs.map((r) => r.resumed)).toEqual([false, true]);
    // Same end state as the cluster whose pod nobody killed: the Cluster spec, names aside.
    const spec = (name: string) =>
      JSON.stringify(h.fleet.localKube.get(R.provisioningClusters, 'fleet-default', name)!.spec).replaceAll(
        name,
        'X',
      );
    expect(spec('downstream-01')).toBe(spec('downstream-02'));
    const status2 = await h.cli(['fleet', 'status', '-o', 'json']);
    const verdicts = JSON.parse(status2.stdout).rows.map((r: { verdict: string; job: { type: string } }) => [
      r.verdict,
      r.job.type,
    ]);
    expect(verdicts).toEqual([
      ['migrated', 'succeeded'],
      ['migrated', 'succeeded'],
      ['not-started', 'none'],
    ]);
  });

  it('holds each Job’s pod to the Role: its own clusters’ names only', async () => {
    const token = h.fleet.pods.all().find((p) => p.token)?.token;
    expect(token).toBeDefined();
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser(
      {
        name: 'local',
        server: h.fleet.local.url,
        caData: Buffer.from(h.fleet.local.certificateAuthority!).toString('base64'),
        skipTLSVerify: false,
      },
      { name: 'pod', token: token! },
    );
    const asPod = new KubeObjects(KubeClient.fromKubeConfig(kc, { clock: h.clock, attempts: 1 }));
    const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', namespace: 'fleet-default', name });
    expect(await asPod.get(secret('downstream-01-kubeconfig'))).toBeDefined();
    const denied = async (work: () => Promise<unknown>) => {
      try {
        await work();
        return false;
      } catch (error) {
        return hasApiStatus(error, 403);
      }
    };
    // downstream-03 got no Job, so no grant; and nothing may be listed.
    expect(await denied(() => asPod.get(secret('downstream-03-kubeconfig')))).toBe(true);
    expect(await denied(() => asPod.list('v1', 'Secret', { namespace: 'fleet-default' }))).toBe(true);
    expect(await denied(() => asPod.list('provisioning.cattle.io/v1', 'Cluster', {}))).toBe(true);
  });

  it('leaves no kubeconfig, token or Secret content in logs, journals, Job specs or reports', async () => {
    const report = await h.cli(['fleet', 'report', '--out', 'report']);
    expect(report.code).toBe(0);
    const secrets = new Set<string>();
    for (const m of h.fleet.members) {
      const s = h.fleet.localKube.get(R.secrets, 'fleet-default', `${m.spec.name}-kubeconfig`)!;
      const data = s.data as Record<string, string>;
      secrets.add(data.value!);
      secrets.add(Buffer.from(data.token!, 'base64').toString());
      for (const identity of Object.values(m.twin.identities)) secrets.add(identity.token);
    }
    for (const p of h.fleet.pods.all()) if (p.token) secrets.add(p.token);
    for (const identity of h.fleet.local.identities()) secrets.add(identity.token);
    const scanned: Record<string, string> = {
      stdout: migrated.stdout,
      stderr: migrated.stderr,
      jobs: JSON.stringify(h.fleet.localKube.list(R.jobs)),
      pods: JSON.stringify(h.fleet.localKube.list(R.pods)),
      journals: JSON.stringify(h.fleet.localKube.list(R.configmaps, { namespace: 'fleet-default' })),
    };
    // Pod logs, the reports and the local journal copies; not the pods' token volumes (that is where tokens go).
    for (const file of filesUnder(h.dir))
      if (/container\.log$|\.html$|journal\.json$/.test(file)) scanned[file] = readFileSync(file, 'utf8');
    expect(Object.keys(scanned).filter((k) => k.endsWith('container.log')).length).toBeGreaterThanOrEqual(3);
    // The scan would see a token where one is: each pod's token volume holds its own.
    const tokenFiles = filesUnder(h.dir).filter((f) => /volumes\/rancher-token\/token$/.test(f));
    expect(tokenFiles.length).toBeGreaterThanOrEqual(3);
    expect(tokenFiles.every((f) => secrets.has(readFileSync(f, 'utf8')))).toBe(true);
    expect(Object.keys(scanned).filter((k) => k.endsWith('.html')).length).toBeGreaterThanOrEqual(3);
    for (const [where, text] of Object.entries(scanned))
      for (const secret of secrets) expect(text.includes(secret), `a secret in ${where}`).toBe(false);
  });
});
