import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualClock, type Clock } from '../../../packages/uproot/src/clock/index.js';
import type { EngineEvent } from '../../../packages/uproot/src/engine/events.js';
import type { RunHost, TargetFlags } from '../../../packages/uproot/src/toolkit/session/run-settings.js';
import { awsEnvironment } from '../../../packages/sandbox/src/aws/index.js';
import { loadScenario } from '../../../packages/sandbox/src/scenarios/index.js';
import { startTwin, type Twin } from '../../../packages/sandbox/src/twin/index.js';
import { twinTarget } from '../../../packages/sandbox/src/demo/twin-target.js';
import { RANCHER_NAMESPACE } from '../../../packages/sandbox/src/twin/rke2/provisioning-cluster.js';
import {
  migrate,
  type MigrateOptions,
  type MigrateResult,
} from '../../../packages/uproot/src/toolkit/migrate.js';
import {
  planFromSources,
  plannerTransforms,
  preflightVerdict,
} from '../../../packages/uproot/src/toolkit/migrate-sources.js';
import {
  rollback,
  type RollbackOptions,
  type RollbackRunResult,
} from '../../../packages/uproot/src/toolkit/rollback.js';
import { verify, type VerifyReport } from '../../../packages/uproot/src/toolkit/verify.js';
import { status, type StatusReport } from '../../../packages/uproot/src/toolkit/status.js';
import { ec2Instances } from '../../../packages/uproot/src/adapters/aws/instance-reader.js';

/**
 * A twin driven the way `uproot demo` drives it (real toolkit calls over HTTPS and the AWS SDK), in virtual
 * time like the demo (decision 0006): a driver jumps from timer to timer whenever no tracked request is in
 * flight, so the simulated managers, Rancher's rollouts and the gates all move on their own, and a machine
 * busy with other work slows the test down without changing what the twin does (in scaled real time a CPU
 * stall of one second was 50 simulated seconds, enough for a lease to expire).
 */
export interface ReliabilityTwin {
  readonly twin: Twin;
  readonly clock: Clock;
  readonly target: TargetFlags;
  readonly events: EngineEvent[];
  migrate(
    options?: Partial<MigrateOptions>,
    extra?: { signal?: AbortSignal; onEvent?: (e: EngineEvent) => void },
  ): Promise<MigrateResult>;
  verify(): Promise<{ report: VerifyReport; exitCode: number }>;
  /** `uproot status` against the twin (the journal, the leases, each controller's figures). */
  status(): Promise<StatusReport>;
  /** verify, repeated a few simulated minutes while only rollouts are still finishing (see settledVerify). */
  settledVerify(): Promise<{ report: VerifyReport; exitCode: number; attempts: number }>;
  rollback(options?: Partial<RollbackOptions>): Promise<RollbackRunResult>;
  /** For a failing assertion's message: what cannot run, the managers, and the twin's last log lines. */
  explain(lines?: number): string;
  close(): Promise<void>;
}

const LOG_KEPT = 300;

export const CLUSTER_REF = 'provisioning.cattle.io/v1/clusters';

export async function startReliabilityTwin(scenarioName = 'rke2-intree'): Promise<ReliabilityTwin> {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-reliability-'));
  const { scenario } = loadScenario(scenarioName, { cwd: dir });
  const clock = new VirtualClock(Date.now());
  let driving = true;
  const driver = (async () => {
    while (driving) await clock.advanceBy(250);
  })();
  const stop = async (): Promise<void> => {
    driving = false;
    await driver;
  };
  let twin: Twin;
  const log: string[] = [];
  const started = clock.now();
  const record = (line: string): void => {
    log.push(`${((clock.now() - started) / 1000).toFixed(3)}s ${line}`);
    if (log.length > LOG_KEPT) log.shift();
  };
  try {
    twin = await startTwin({ scenario, clock, dir: join(dir, 'twin'), log: record });
  } catch (error) {
    await stop();
    throw error;
  }
  await settled(twin);
  const env = { PATH: process.env.PATH, ...awsEnvironment(twin.aws), AWS_EC2_METADATA_DISABLED: 'true' };
  const host: RunHost = { cwd: dir, env, interactive: false };
  const { target, execution, runner } = twinTarget(twin, clock);
  const stateDir = join(dir, '.uproot');
  const events: EngineEvent[] = [];
  return {
    twin,
    clock,
    target,
    events,
    migrate: (options = {}, extra = {}) =>
      migrate(
        { ...target, ...execution, yes: true, stateDir, ...options },
        extra.signal ? { ...host, signal: extra.signal } : host,
        {
          clock,
          runner,
          buildPlan: planFromSources(dir, {}),
          preflight: preflightVerdict(dir, env, clock),
          transformsFor: plannerTransforms,
          onEvent: (e) => {
            events.push(e);
            extra.onEvent?.(e);
          },
        },
      ),
    verify: () => verify(target, host, { clock, instances: ec2Instances(env) }),
    status: () => status({ ...target, stateDir }, host, { clock }),
    settledVerify: async () => {
      // migrate can finish while Rancher still restarts the last control-plane node for its final edit, so
      // a KCM or CCM pod is briefly not ready; verify is a point-in-time check a person reruns. Wait for
      // Rancher's rollout, then retry only while the failures are pods still rolling.
      if (twin.management)
        await waitFor(
          () => clusterRolledOut(twin),
          () => JSON.stringify(twin.status().cluster),
        );
      for (let attempts = 1; ; attempts++) {
        const result = await verify(target, host, { clock, instances: ec2Instances(env) });
        const failed = result.report.checks.filter((c) => c.status === 'fail');
        if (!onlyStillRolling(failed) || attempts >= 10) return { ...result, attempts };
        await clock.sleep(30_000);
      }
    },
    rollback: (options = {}) =>
      rollback({ ...target, ...execution, yes: true, stateDir, ...options }, host, {
        clock,
        runner,
        transformsFor: plannerTransforms,
        onEvent: (e) => events.push(e),
      }),
    explain: (lines = 60) => {
      const { failing, managers } = twin.status();
      return JSON.stringify({ failing, managers, log: log.slice(-lines) }, null, 1);
    },
    close: async () => {
      await twin.close();
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until the cluster runs as a user would find it: a kube-controller-manager leads
 * and every machine is a registered node with its providerID. `uproot demo` gets this for free from the time
 * its preflight takes; a bare `migrate` right after boot would fail preflight on the missing lease.
 */
export async function settled(twin: Twin, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = twin.status();
    const ready =
      status.leases['kube-controller-manager'] !== undefined &&
      // A replayed snapshot may hold Node objects no machine stands behind (a stray Node): more, not fewer.
      status.nodes.registered >= status.nodes.machines &&
      status.nodes.withProviderId === status.nodes.machines;
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`the twin did not settle: ${JSON.stringify(status)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Obj {
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** The facts a finished migration must establish, comparable across twins of the same (seeded) scenario. */
export function endState(twin: Twin): Record<string, unknown> {
  const store = twin.downstream.store;
  const nodes = (store.list('v1/nodes').items as unknown as Obj[])
    .map((n) => ({
      name: n.metadata?.name,
      providerID: n.spec?.providerID,
      uninitialized: ((n.spec?.taints as { key: string }[] | undefined) ?? []).some(
        (t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized',
      ),
    }))
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
  const loadBalancers = (store.list('v1/services').items as unknown as Obj[])
    .filter((s) => s.spec?.type === 'LoadBalancer')
    .map((s) => ({
      name: s.metadata?.name,
      hostnames: (
        ((s.status?.loadBalancer as { ingress?: { hostname?: string }[] } | undefined)?.ingress ?? []) as {
          hostname?: string;
        }[]
      ).map((i) => i.hostname),
    }))
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
  return { nodes, loadBalancers, kcm: kcmCloudProviders(twin), ccm: ccmRollout(twin) };
}

/** Per kube-controller-manager pod: its --cloud-provider and leader-migration flags. */
export function kcmCloudProviders(twin: Twin): string[] {
  return podArgs(twin, 'kube-controller-manager-')
    .map((args) =>
      args
        .filter((a) => a.startsWith('--cloud-provider=') || a.startsWith('--enable-leader-migration'))
        .sort()
        .join(' '),
    )
    .sort();
}

export function podArgs(twin: Twin, prefix: string): string[][] {
  return (twin.downstream.store.list('v1/pods', { namespace: 'kube-system' }).items as unknown as Obj[])
    .filter((p) => (p.metadata?.name ?? '').startsWith(prefix))
    .map((p) => {
      const c =
        ((p.spec?.containers as { command?: string[]; args?: string[] }[] | undefined) ?? [])[0] ?? {};
      return [...(c.command ?? []), ...(c.args ?? [])];
    });
}

/** The CCM DaemonSet's rollout: desired, ready and updated counts (undefined when it does not exist). */
export function ccmRollout(twin: Twin): { desired: unknown; ready: unknown; updated: unknown } | undefined {
  const ds = twin.downstream.store.get(
    'apps/v1/daemonsets',
    'kube-system',
    'aws-cloud-controller-manager',
  ) as Obj | undefined;
  if (!ds) return undefined;
  return {
    desired: ds.status?.desiredNumberScheduled,
    ready: ds.status?.numberReady,
    updated: ds.status?.updatedNumberScheduled,
  };
}

/** The provisioning Cluster in Rancher's management API. */
export function provisioningCluster(twin: Twin): Obj {
  return twin.management!.store.mustGet(CLUSTER_REF, RANCHER_NAMESPACE, twin.scenario.clusterName) as Obj;
}

/** Zero overlap for every controller in the twin's ownership ledger. */
export function overlaps(twin: Twin): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, c] of Object.entries(twin.ledgerReport().controllers)) {
    if ((c.overlapSeconds ?? 0) > 0) out[name] = c.overlapSeconds!;
  }
  return out;
}

/** The ledger's intervals and overlaps of the controllers that overlap, for assertion messages. */
export function overlapDetail(twin: Twin): string {
  const detail = twin.ledgerReport().detail as { controllers: Record<string, unknown> };
  return JSON.stringify(
    Object.keys(overlaps(twin)).map((name) => ({ name, ...(detail.controllers[name] as object) })),
  );
}

/** Polls `done` while the twin's time runs; throws with `describe()` after `timeoutMs` of real time. */
export async function waitFor(
  done: () => boolean,
  describe: () => string,
  timeoutMs = 30_000,
): Promise<number> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs) throw new Error(`not reached in ${timeoutMs} ms: ${describe()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
}

/** Rancher has rolled out the Cluster's current generation (its Updated condition is True). */
export function clusterRolledOut(twin: Twin): boolean {
  const cluster = provisioningCluster(twin) as {
    metadata?: { generation?: number };
    status?: { observedGeneration?: number; conditions?: { type: string; status: string }[] };
  };
  return (
    (cluster.status?.observedGeneration ?? 0) >= (cluster.metadata?.generation ?? 0) &&
    (cluster.status?.conditions ?? []).some((c) => c.type === 'Updated' && c.status === 'True')
  );
}

/**
 * Verify's failures that only say a rollout is still finishing (the CCM DaemonSet or the managers' pods):
 * worth another look a little later, not a verdict.
 */
export function onlyStillRolling(failed: readonly { id: string; detail: string }[]): boolean {
  return (
    failed.length > 0 &&
    failed.every(
      (c) =>
        (c.id === 'ccm-running' || c.id === 'kcm-external') &&
        /rollout to finish|not running and ready/.test(c.detail),
    )
  );
}
