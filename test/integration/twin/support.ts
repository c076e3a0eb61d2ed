import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { loadScenario, type ScenarioInput } from '../../../packages/sandbox/src/scenarios/index.js';
import { startTwin, type StartTwinOptions, type Twin } from '../../../packages/sandbox/src/twin/index.js';

/** Test helpers for twins: start one in a temp dir, run the real kubectl against it, move virtual time. */

export interface TwinHarness {
  readonly twin: Twin;
  readonly dir: string;
  readonly logs: string[];
  kubectl(args: readonly string[], options?: { input?: string }): Promise<CommandResult>;
  close(): Promise<void>;
}

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function startHarness(
  scenario: string | ScenarioInput,
  clock: VirtualClock,
  extra: Partial<StartTwinOptions> = {},
): Promise<TwinHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-twin-'));
  const home = mkdtempSync(join(tmpdir(), 'uproot-twin-home-'));
  const logs: string[] = [];
  const twin = await startTwin({
    scenario: typeof scenario === 'string' ? loadScenario(scenario).scenario : scenario,
    clock,
    dir,
    log: (line) => logs.push(`${new Date(clock.now()).toISOString()} ${line}`),
    ...extra,
  });
  return {
    twin,
    dir,
    logs,
    kubectl: (args, options) =>
      run('kubectl', ['--kubeconfig', twin.files.kubeconfig, ...args], {
        env: {
          ...process.env,
          HOME: home,
          KUBECACHEDIR: join(home, 'cache'),
          KUBECONFIG: twin.files.kubeconfig,
        },
        ...(options?.input !== undefined ? { input: options.input } : {}),
      }),
    close: async () => {
      await twin.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export function run(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

/** Advances virtual time in steps until `done()` holds; throws with `describe()` when `maxMs` passes first. */
export async function advanceUntil(
  clock: VirtualClock,
  done: () => boolean,
  options: { stepMs?: number; maxMs?: number; describe?: () => string } = {},
): Promise<number> {
  const step = options.stepMs ?? 1_000;
  const start = clock.now();
  const max = options.maxMs ?? 600_000;
  while (!done()) {
    if (clock.now() - start > max) {
      throw new Error(
        `condition not reached within ${max / 1000}s of virtual time${options.describe ? `: ${options.describe()}` : ''}`,
      );
    }
    await clock.advanceBy(step);
  }
  return clock.now() - start;
}

/** Runs a command that waits on the cluster (rollout status) while virtual time moves on. */
export async function whileAdvancing<T>(
  clock: VirtualClock,
  work: Promise<T>,
  options: { stepMs?: number; maxMs?: number } = {},
): Promise<T> {
  let finished = false;
  let result: T | undefined;
  let failure: unknown;
  void work.then(
    (r) => {
      finished = true;
      result = r;
    },
    (e: unknown) => {
      finished = true;
      failure = e;
    },
  );
  const start = clock.now();
  while (!finished) {
    if (clock.now() - start > (options.maxMs ?? 600_000))
      throw new Error('the command did not finish in virtual time');
    await clock.advanceBy(options.stepMs ?? 1_000);
    // Give the real process a moment to read what changed.
    await new Promise((r) => setTimeout(r, 20));
  }
  if (failure !== undefined) throw failure;
  return result as T;
}

/** Rancher's rollout is done when the Cluster's Updated condition is True for the current generation. */
export function clusterRolledOut(twin: Twin): boolean {
  const cluster = twin.management?.store.get(
    'provisioning.cattle.io/v1/clusters',
    'fleet-default',
    twin.scenario.clusterName,
  );
  if (!cluster) return false;
  const status = (cluster.status ?? {}) as {
    observedGeneration?: number;
    conditions?: { type: string; status: string }[];
  };
  const generation = cluster.metadata?.generation ?? 0;
  return (
    (status.observedGeneration ?? 0) >= generation &&
    (status.conditions ?? []).some((c) => c.type === 'Updated' && c.status === 'True')
  );
}

export interface NodeView {
  readonly name: string;
  readonly providerID: string | undefined;
  readonly taints: readonly { key: string; value?: string; effect: string }[];
  readonly unschedulable: boolean;
}

export function nodes(twin: Twin): NodeView[] {
  return twin.downstream.store.list('v1/nodes').items.map((n) => {
    const spec = (n.spec ?? {}) as {
      providerID?: string;
      taints?: { key: string; value?: string; effect: string }[];
      unschedulable?: boolean;
    };
    return {
      name: n.metadata?.name ?? '',
      providerID: spec.providerID,
      taints: spec.taints ?? [],
      unschedulable: spec.unschedulable === true,
    };
  });
}

export function serviceHostnames(twin: Twin): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const svc of twin.downstream.store.list('v1/services').items) {
    const status = (svc.status ?? {}) as { loadBalancer?: { ingress?: { hostname?: string }[] } };
    if ((svc.spec as { type?: string } | undefined)?.type !== 'LoadBalancer') continue;
    out[`${svc.metadata?.namespace}/${svc.metadata?.name}`] = status.loadBalancer?.ingress?.[0]?.hostname;
  }
  return out;
}

export function podArgs(twin: Twin, namePrefix: string): string[][] {
  return twin.downstream.store
    .list('v1/pods', { namespace: 'kube-system' })
    .items.filter((p) => (p.metadata?.name ?? '').startsWith(namePrefix))
    .map((p) => {
      const c =
        ((p.spec as { containers?: { command?: string[]; args?: string[] }[] }).containers ?? [])[0] ?? {};
      return [...(c.command ?? []), ...(c.args ?? [])];
    });
}

/** The component owning a logical controller at the end of the ledger (its open interval), if any. */
export function ownerAtEnd(twin: Twin, controller: string): string | undefined {
  const detail = twin.ledgerReport().detail as {
    controllers: Record<string, { intervals: { component: string; open?: boolean }[] }>;
  };
  return detail.controllers[controller]?.intervals.find((i) => i.open)?.component;
}

/** `kubectl --context rancher patch` of the twin's provisioning Cluster with a merge patch of its spec. */
export function patchRancherCluster(h: TwinHarness, spec: unknown): Promise<CommandResult> {
  return h.kubectl([
    '--context',
    'rancher',
    'patch',
    'clusters.provisioning.cattle.io',
    '-n',
    'fleet-default',
    h.twin.scenario.clusterName,
    '--type=merge',
    '-p',
    JSON.stringify({ spec }),
  ]);
}

/** Every Node's `status.nodeInfo.kubeletVersion`, by node name. */
export function kubeletVersions(twin: Twin): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of twin.downstream.store.list('v1/nodes').items) {
    out[n.metadata?.name ?? ''] =
      (n.status as { nodeInfo?: { kubeletVersion?: string } } | undefined)?.nodeInfo?.kubeletVersion ?? '';
  }
  return out;
}
