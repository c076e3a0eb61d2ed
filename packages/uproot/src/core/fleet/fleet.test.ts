import { describe, expect, it } from 'vitest';
import {
  clusterVerdict,
  fleetClusterOf,
  fleetExitCode,
  fleetManifests,
  fleetReportModel,
  jobNameFor,
  jobStateOf,
  kubeconfigSecretNameOf,
  pacingOf,
  parseClusterList,
  selectClusters,
  startsNow,
  type ClusterOutcome,
  type FleetCluster,
  type JobCluster,
} from './index.js';

const cluster = (namespace: string, name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'provisioning.cattle.io/v1',
  kind: 'Cluster',
  metadata: { namespace, name, labels: { env: 'prod' } },
  spec: { kubernetesVersion: 'v1.26.15+rke2r1', rkeConfig: {} },
  ...extra,
});

describe('fleet clusters', () => {
  it('names the kubeconfig Secret as Rancher does', () => {
    expect(kubeconfigSecretNameOf(cluster('fleet-default', 'a'))).toBe('a-kubeconfig');
    expect(
      kubeconfigSecretNameOf(cluster('fleet-default', 'a', { status: { clientSecretName: 'x-kc' } })),
    ).toBe('x-kc');
    expect(
      kubeconfigSecretNameOf({
        metadata: { name: 'a', namespace: 'ns' },
        spec: { clusterAPIConfig: { clusterName: 'capi-a' } },
      }),
    ).toBe('capi-a-kubeconfig');
  });

  it('tells RKE2 from K3s and from clusters Rancher did not provision', () => {
    expect(fleetClusterOf(cluster('fleet-default', 'a'))?.distro).toBe('rke2');
    expect(
      fleetClusterOf({
        metadata: { name: 'k', namespace: 'n' },
        spec: { kubernetesVersion: 'v1.28.1+k3s1', rkeConfig: {} },
      })?.distro,
    ).toBe('k3s');
    expect(fleetClusterOf({ metadata: { name: 'i', namespace: 'n' }, spec: {} })?.distro).toBe('other');
    expect(fleetClusterOf({ metadata: { name: 'no-namespace' } })).toBeUndefined();
  });

  it('selects named clusters, reports the missing ones, and never Rancher’s local cluster', () => {
    const listed = [
      fleetClusterOf(cluster('fleet-default', 'b'))!,
      fleetClusterOf(cluster('fleet-default', 'a'))!,
      fleetClusterOf(cluster('fleet-local', 'local'))!,
    ] as FleetCluster[];
    expect(selectClusters(listed, undefined).selected.map((c) => c.name)).toEqual(['a', 'b']);
    const some = selectClusters(listed, parseClusterList('b, fleet-default/zz,b'));
    expect(some.selected.map((c) => c.name)).toEqual(['b']);
    expect(some.missing).toEqual([{ namespace: 'fleet-default', name: 'zz' }]);
    expect(() => parseClusterList(' , ')).toThrow(/names no cluster/);
    expect(() => parseClusterList('UPPER')).toThrow(/not a cluster name/);
  });
});

describe('pacing', () => {
  it('starts up to --parallel and halts once --max-failures migrations failed', () => {
    const pacing = pacingOf({ parallel: 2, maxFailures: 2 });
    expect(startsNow({ waiting: ['a', 'b', 'c'], running: 0, failed: 0 }, pacing)).toEqual({
      start: ['a', 'b'],
      halted: false,
    });
    expect(startsNow({ waiting: ['c'], running: 2, failed: 1 }, pacing).start).toEqual([]);
    expect(startsNow({ waiting: ['c'], running: 1, failed: 1 }, pacing).start).toEqual(['c']);
    expect(startsNow({ waiting: ['c'], running: 0, failed: 2 }, pacing)).toEqual({ start: [], halted: true });
  });

  it('refuses a parallelism that is not a whole number from 1', () => {
    expect(() => pacingOf({ parallel: 0 })).toThrow(/--parallel must be a whole number/);
    expect(() => pacingOf({ maxFailures: 1.5 })).toThrow(/--max-failures/);
    expect(pacingOf({})).toEqual({ parallel: 4, maxFailures: 1 });
  });

  it('exits 0 only when every cluster ended migrated', () => {
    const done: ClusterOutcome[] = [{ type: 'migrated' }, { type: 'already-completed' }];
    expect(fleetExitCode(done)).toBe(0);
    expect(fleetExitCode([...done, { type: 'preflight-failed', failedChecks: ['cluster-tags'] }])).toBe(1);
    expect(fleetExitCode([...done, { type: 'not-started', because: 'interrupted' }])).toBe(130);
  });
});

describe('status', () => {
  it('reads a Job as the Job controller writes it', () => {
    expect(jobStateOf({ spec: { suspend: true }, status: {} })).toEqual({ type: 'queued' });
    expect(jobStateOf({ spec: {}, status: { active: 1, failed: 2 } })).toEqual({
      type: 'running',
      failedPods: 2,
    });
    expect(
      jobStateOf({
        status: {
          failed: 7,
          conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'm' }],
        },
      }),
    ).toEqual({ type: 'failed', reason: 'BackoffLimitExceeded', message: 'm', failedPods: 7 });
    expect(jobStateOf({ status: { conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }] } })).toEqual({
      type: 'succeeded',
    });
  });

  it('judges a cluster by its journal first and its Job second', () => {
    const done = { type: 'completed', verified: 9, total: 9 } as const;
    expect(clusterVerdict(done, { type: 'failed', reason: 'r', message: '', failedPods: 1 })).toBe(
      'migrated',
    );
    const half = {
      type: 'in-progress',
      step: 'install-ccm',
      state: 'verifying',
      verified: 3,
      total: 9,
    } as const;
    expect(clusterVerdict(half, { type: 'running', failedPods: 1 })).toBe('running');
    expect(clusterVerdict(half, { type: 'none' })).toBe('running');
    expect(clusterVerdict({ ...half, failure: { code: 'UP-GATE-X', reason: 'r' } }, { type: 'none' })).toBe(
      'failed',
    );
    expect(clusterVerdict({ type: 'no-migration' }, { type: 'queued' })).toBe('queued');
    expect(clusterVerdict({ type: 'no-migration' }, { type: 'none' })).toBe('not-started');
  });
});

describe('report index', () => {
  it('takes the worst overlap and gap, ignoring controllers no manager runs', () => {
    const model = fleetReportModel(
      [
        {
          cluster: 'fleet-default/a',
          state: 'completed',
          stepsVerified: 9,
          stepsTotal: 9,
          controllers: [
            { name: 'service', migrated: true, state: 'running', overlapSeconds: 0, maxGapSeconds: 12 },
            { name: 'route', migrated: true, state: 'not-configured' },
            // Not a migrated controller: its figures are not the fleet's.
            { name: 'ttl', migrated: false, state: 'running', overlapSeconds: 0, maxGapSeconds: 900 },
          ],
          startedAt: 1_000,
          finishedAt: 151_000,
        },
        { cluster: 'fleet-default/b', state: 'failed', stepsVerified: 2, stepsTotal: 9, controllers: [] },
      ],
      0,
    );
    expect(model.rows[0]).toMatchObject({ overlapSeconds: 0, maxGapSeconds: 12, durationSeconds: 150 });
    expect(model.rows[1]).not.toHaveProperty('overlapSeconds');
    expect(model.totals).toEqual({ clusters: 2, completed: 1, failed: 1, maxOverlapSeconds: 0 });
  });
});

describe('job manifests', () => {
  const clusters: JobCluster[] = ['a', 'b'].map((name) => ({
    ref: { namespace: 'fleet-default', name },
    kubeconfigSecret: `${name}-kubeconfig`,
    journal: `uproot-migration-${name}`,
    lock: `uproot-migration-lock-${name}`,
  }));
  const objects = fleetManifests(
    {
      namespace: 'uproot-system',
      serviceAccount: 'uproot-fleet',
      image: 'uproot:test',
      backoffLimit: 6,
      activeDeadlineSeconds: 3600,
    },
    clusters,
  );

  it('grants each cluster’s Secret, journal and lock by name only', () => {
    const role = objects.find((o) => o.kind === 'Role') as { rules: Record<string, unknown>[] };
    const secrets = role.rules.find((r) => (r.resources as string[])[0] === 'secrets');
    expect(secrets).toEqual({
      apiGroups: [''],
      resources: ['secrets'],
      verbs: ['get'],
      resourceNames: ['a-kubeconfig', 'b-kubeconfig'],
    });
    // Only create goes without names, and never on Secrets or Clusters.
    for (const r of role.rules.filter((r) => !r.resourceNames))
      expect([r.verbs, r.resources]).toEqual([['create'], [expect.stringMatching(/configmaps|leases/)]]);
  });

  it('makes Jobs that name their cluster and carry no credentials', () => {
    const jobs = objects.filter((o) => o.kind === 'Job');
    expect(jobs.map((j) => (j.metadata as { name: string }).name)).toEqual(['uproot-a', 'uproot-b']);
    const text = JSON.stringify(jobs);
    expect(text).toContain('"--cluster","fleet-default/a"');
    expect(text).not.toMatch(/kubeconfig"|token":|secretKeyRef|envFrom/);
    expect(text).toContain('"readOnlyRootFilesystem":true');
  });

  it('keeps Job names within 63 characters and apart across namespaces', () => {
    const long = jobNameFor({ namespace: 'fleet-default', name: 'x'.repeat(70) });
    expect(long.length).toBeLessThanOrEqual(63);
    expect(jobNameFor({ namespace: 'team-a', name: 'prod' })).not.toBe(
      jobNameFor({ namespace: 'team-b', name: 'prod' }),
    );
  });
});
