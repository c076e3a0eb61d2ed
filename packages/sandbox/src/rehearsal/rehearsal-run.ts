/**
 * The one driver of the leader-migration rehearsal: the procedure (rolling-migration.ts) on managers the
 * caller starts (election's runControllerManager on an in-memory lease store in rehearse-migration.ts, the
 * sandbox's simulated managers over HTTP in rehearse-sandbox.ts), an outside watcher polling the leases, and
 * a manager that exits on a lost lease restarted after a pause, as a kubelet restarts a static pod.
 */
import type { KubernetesVersion, LeaseObservation, ManagerComponent, ManagerProfile } from 'uproot/core';
import { JITTER_FACTOR, type ElectionTimings, type LeaseApi, type ManagerExit } from 'uproot/election';
import { watchLeases, type VirtualClock } from 'uproot/election/testing';
import { rollingMigration, type RollingMigration } from './rolling-migration.js';

/** A manager process as the driver sees it. */
export interface RehearsedManager {
  readonly identity: string;
  readonly exited: Promise<ManagerExit>;
  stop(): Promise<unknown>;
}

export interface RehearsalSpec {
  readonly component: ManagerComponent;
  readonly version: KubernetesVersion;
}

export interface RehearsalRunOptions<Spec extends RehearsalSpec> extends Pick<
  RollingMigration<Spec>,
  'nodes' | 'leaderMigration' | 'versions' | 'specs' | 'timings' | 'words'
> {
  readonly clock: VirtualClock;
  /** Starts a manager of `spec` on node `node`, with the profile the timeline inference judges it by. */
  start(node: number, spec: Spec): { readonly manager: RehearsedManager; readonly profile: ManagerProfile };
  /** What the outside watcher reads the leases through. */
  readonly watchApi: LeaseApi;
  readonly pollIntervalMs: number;
  readonly electionTimings: ElectionTimings;
  /** Progress, as each step of the procedure starts (clock time). */
  readonly onStep?: (time: number, step: string) => void;
}

export interface RehearsalRun {
  readonly start: number;
  readonly end: number;
  readonly steps: readonly { readonly time: number; readonly step: string }[];
  readonly observations: readonly LeaseObservation[];
  /** The profile of every manager process started, by lease identity. */
  readonly identityProfiles: Readonly<Record<string, ManagerProfile>>;
}

export async function runRehearsal<Spec extends RehearsalSpec>(
  options: RehearsalRunOptions<Spec>,
): Promise<RehearsalRun> {
  const { clock } = options;
  const steps: { time: number; step: string }[] = [];
  const identityProfiles: Record<string, ManagerProfile> = {};
  const slots = new Map<string, RehearsedManager>();
  let stopping = false;
  const step = (text: string): void => {
    steps.push({ time: clock.now(), step: text });
    options.onStep?.(clock.now(), text);
  };
  const launch = (node: number, spec: Spec): void => {
    const { manager, profile } = options.start(node, spec);
    identityProfiles[manager.identity] = profile;
    const slot = `${spec.component}@${node}`;
    slots.set(slot, manager);
    void manager.exited.then(({ code, reason }) => {
      if (code === 0 || stopping) return;
      step(`${manager.identity} exited (${reason}); restarting`);
      void clock.sleep(options.timings.downtimeMs / 2).then(() => {
        if (!stopping && slots.get(slot) === manager) launch(node, spec);
      });
    });
  };
  const kill = async (component: ManagerComponent, node: number): Promise<void> => {
    await slots.get(`${component}@${node}`)?.stop();
  };

  const watchAbort = new AbortController();
  const watcher = watchLeases({
    api: options.watchApi,
    clock,
    signal: watchAbort.signal,
    intervalMs: options.pollIntervalMs,
  });
  const start = clock.now();
  let finished = false;
  const run = rollingMigration({
    clock,
    nodes: options.nodes,
    leaderMigration: options.leaderMigration,
    versions: options.versions,
    specs: options.specs,
    timings: options.timings,
    words: options.words,
    launch,
    kill,
    step,
  }).finally(() => (finished = true));
  while (!finished) await clock.advanceBy(10_000);
  await run;
  const end = clock.now();

  stopping = true;
  watchAbort.abort();
  await Promise.all([...slots.values()].map((m) => m.stop()));
  await clock.advanceBy(options.electionTimings.retryPeriodMs);
  await watcher.done;
  return { start, end, steps, observations: watcher.observations, identityProfiles };
}

/** LD + 2 × RP × (1 + jitter): the longest a dead holder's successor can take to start (docs/election.md). */
export function gapBoundSeconds(timings: ElectionTimings): number {
  return (timings.leaseDurationMs + 2 * timings.retryPeriodMs * (1 + JITTER_FACTOR)) / 1000;
}

/** How long after a change of owner the outside view may still lag: a lease, two polls and a retry. */
export function observationToleranceMs(timings: ElectionTimings, pollIntervalMs: number): number {
  return timings.leaseDurationMs + 2 * pollIntervalMs + timings.retryPeriodMs;
}

/** Both managers as a rehearsal runs them, for the ownership views: the KCM at `from`, the CCM at its own. */
export function rehearsalProfiles(
  from: KubernetesVersion,
  ccmVersion: KubernetesVersion,
): Readonly<Record<ManagerComponent, ManagerProfile>> {
  return {
    'kube-controller-manager': { version: from, cloudControllers: true },
    'cloud-controller-manager': { version: ccmVersion, cloudControllers: true },
  };
}
