import { seededRandom, VirtualClock } from '../../clock/index.js';
import { parseKubernetesVersion, type KubernetesVersion } from '../../core/kubernetes-version/index.js';
import {
  defaultLeaderMigrationConfiguration,
  type LeaderMigrationConfiguration,
  type ManagerComponent,
} from '../../core/leader-migration/index.js';
import {
  analyzeLedger,
  compareOwnership,
  createLedger,
  inferOwnership,
  type InferredTimeline,
  type LedgerAnalysis,
  type LedgerEntry,
  type LeaseObservation,
  type ManagerProfile,
  type OwnershipDisagreement,
} from '../../core/ownership/index.js';
import { DEFAULT_TIMINGS, JITTER_FACTOR, type ElectionTimings } from '../elector/election-config.js';
import type { LeaseApi, LeaseLock } from '../lease-lock/lease-lock.js';
import { MemoryLeaseStore } from '../lease-lock/memory-lease-store.js';
import { runControllerManager, type ControllerManager } from '../leader-migration/run-controller-manager.js';
import { watchLeases } from '../lease-watcher.js';
import { ledgerControllers } from './simulated-controllers.js';
import { rollingMigration } from './rolling-migration.js';

/** Where the managers' leases live. Default: a MemoryLeaseStore; the sandbox passes its API server's. */
export interface RehearsalLeases {
  lock(identity: string, leaseName: string): LeaseLock;
  /** What the outside watcher reads through. */
  readonly watchApi: LeaseApi;
}

export interface RehearsalOptions {
  readonly leaderMigration: boolean;
  readonly seed: number;
  readonly timings?: Partial<ElectionTimings>;
  /** Control-plane nodes, one KCM and (later) one CCM each. Default 3. */
  readonly nodes?: number;
  /** Default 1.26 → 1.27, the CCM at the target version. */
  readonly fromVersion?: string;
  readonly toVersion?: string;
  readonly ccmVersion?: string;
  /** Overrides the default configuration on both sides (e.g. one listing both eras' names). */
  readonly migrationConfig?: LeaderMigrationConfiguration;
  /** Time before the first step. Default 60 s. */
  readonly warmupMs?: number;
  /** Start of the observation window, after the start. Default: half the warm-up (elections are done by then). */
  readonly observeFromMs?: number;
  readonly settleMs?: number;
  readonly restartDowntimeMs?: number;
  readonly ccmStaggerMs?: number;
  readonly actionIntervalMs?: number;
  readonly pollIntervalMs?: number;
  readonly clock?: VirtualClock;
  readonly leases?: RehearsalLeases;
}

export interface RehearsalFigures {
  /** Logical controllers leader migration is meant to hand over without overlap. */
  readonly migrated: readonly string[];
  readonly overlapSeconds: Readonly<Record<string, number>>;
  readonly maxGapSeconds: Readonly<Record<string, number>>;
  readonly worstOverlapSeconds: number;
  readonly worstGapSeconds: number;
  /** LD + 2 × RP × (1 + jitter): the longest a dead holder's successor can take (docs/election.md). */
  readonly gapBoundSeconds: number;
}

export interface RehearsalReport {
  readonly leaderMigration: boolean;
  readonly figures: RehearsalFigures;
  readonly ledger: LedgerAnalysis;
  readonly timeline: InferredTimeline;
  /** Where the outside timeline and the ledger disagree; `explained` ones are observation lag. */
  readonly disagreements: readonly OwnershipDisagreement[];
  readonly steps: readonly { readonly time: number; readonly step: string }[];
  readonly entries: readonly LedgerEntry[];
  readonly observations: readonly LeaseObservation[];
}

const MIGRATED = ['route', 'service', 'cloud-node-lifecycle'] as const;

/**
 * The migration of seeds 002/003 in virtual time on three control-plane nodes, with every controller writing
 * to the ownership ledger and an outside watcher polling the leases.
 *
 * With leader migration: KCMs (from-version, in-tree, migration on) → a CCM per node (migration on) → each
 * KCM restarted in turn at the to-version with --cloud-provider=external and no migration flag.
 * Without: KCMs in-tree → each restarted external (the cloud controllers stop) → then the CCMs are deployed.
 */
export async function rehearseMigration(options: RehearsalOptions): Promise<RehearsalReport> {
  const timings: ElectionTimings = { ...DEFAULT_TIMINGS, ...options.timings };
  const clock = options.clock ?? new VirtualClock(Date.UTC(2026, 0, 1));
  const nodes = options.nodes ?? 3;
  const from = parseKubernetesVersion(options.fromVersion ?? '1.26');
  const to = parseKubernetesVersion(options.toVersion ?? '1.27');
  const ccmVersion = parseKubernetesVersion(options.ccmVersion ?? to.raw);
  const warmup = options.warmupMs ?? 60_000;
  const settle = options.settleMs ?? 60_000;
  const downtime = options.restartDowntimeMs ?? 20_000;
  const stagger = options.ccmStaggerMs ?? 10_000;
  const actionIntervalMs = options.actionIntervalMs ?? 5_000;
  const random = seededRandom(options.seed);
  const store = options.leases ? undefined : new MemoryLeaseStore({ clock });
  const leases: RehearsalLeases = options.leases ?? {
    lock: (identity, name) => store!.lock({ namespace: 'kube-system', name, identity }),
    watchApi: store!.api('uproot-status'),
  };

  const ledger = createLedger();
  const steps: { time: number; step: string }[] = [];
  const identityProfiles: Record<string, ManagerProfile> = {};
  const managers = new Map<string, ControllerManager>();
  let serial = 0;
  let stopping = false;
  const start = clock.now();
  const step = (text: string): void => void steps.push({ time: clock.now(), step: text });

  interface Spec {
    readonly component: ManagerComponent;
    readonly version: KubernetesVersion;
    readonly migration: boolean;
    readonly cloudProvider: string;
  }
  const slotKey = (component: ManagerComponent, node: number): string => `${component}@${node}`;
  const launch = (node: number, spec: Spec): void => {
    const identity = `cp-${node}_${spec.component === 'kube-controller-manager' ? 'kcm' : 'ccm'}-${(++serial).toString(16).padStart(4, '0')}`;
    const config = spec.migration
      ? (options.migrationConfig ?? defaultLeaderMigrationConfiguration(spec.version))
      : undefined;
    identityProfiles[identity] = {
      version: spec.version,
      ...(config ? { migration: config } : {}),
      cloudControllers: spec.component === 'cloud-controller-manager' || spec.cloudProvider === 'aws',
    };
    const manager = runControllerManager({
      component: spec.component,
      identity,
      kubernetesVersion: spec.version,
      leaseLockFactory: (name) => leases.lock(identity, name),
      migration: { enabled: spec.migration, ...(config ? { config } : {}) },
      cloudProvider: spec.cloudProvider,
      controllers: ledgerControllers({
        component: spec.component,
        version: spec.version,
        identity: () => identity,
        ledger,
        clock,
        actionIntervalMs,
      }),
      timings,
      clock,
      random: seededRandom(Math.floor(random() * 2 ** 32)),
      onExit: (code, reason) => {
        if (code === 0 || stopping) return;
        // The kubelet restarts a static pod that exited: same flags, new identity.
        step(`${identity} exited (${reason}); restarting`);
        void clock.sleep(downtime / 2).then(() => {
          if (!stopping && managers.get(slotKey(spec.component, node))?.identity === identity)
            launch(node, spec);
        });
      },
    });
    managers.set(slotKey(spec.component, node), manager);
  };
  const kill = async (component: ManagerComponent, node: number): Promise<void> => {
    await managers.get(slotKey(component, node))?.stop();
  };

  const watchAbort = new AbortController();
  const watcher = watchLeases({
    api: leases.watchApi,
    clock,
    signal: watchAbort.signal,
    intervalMs: options.pollIntervalMs ?? 1_000,
  });

  const kcmOld: Spec = {
    component: 'kube-controller-manager',
    version: from,
    migration: options.leaderMigration,
    cloudProvider: 'aws',
  };
  const kcmNew: Spec = {
    component: 'kube-controller-manager',
    version: to,
    migration: false,
    cloudProvider: 'external',
  };
  const ccm: Spec = {
    component: 'cloud-controller-manager',
    version: ccmVersion,
    migration: options.leaderMigration,
    cloudProvider: 'aws',
  };

  const script = (): Promise<void> =>
    rollingMigration({
      clock,
      nodes: Array.from({ length: nodes }, (_, node) => `cp-${node}`),
      leaderMigration: options.leaderMigration,
      versions: { from, to, ccm: ccmVersion },
      specs: { kcmOld, kcmNew, ccm },
      timings: { warmupMs: warmup, settleMs: settle, downtimeMs: downtime, staggerMs: stagger },
      words: { inTree: 'in-tree', kcmMigrating: 'leader migration on', ccmMigrating: 'leader migration' },
      launch,
      kill,
      step,
    });

  let finished = false;
  const run = script().finally(() => (finished = true));
  while (!finished) await clock.advanceBy(10_000);
  await run;
  const end = clock.now();

  stopping = true;
  watchAbort.abort();
  await Promise.all([...managers.values()].map((m) => m.stop()));
  await clock.runUntilIdle(60_000);
  await watcher.done;

  const window = { from: start + (options.observeFromMs ?? warmup / 2), to: end };
  const report = analyzeLedger(ledger.entries, {
    window,
    controllers: ['route', 'service', 'cloud-node-lifecycle', 'nodeipam', 'cloud-node'],
  });
  const timeline = inferOwnership({
    observations: watcher.observations,
    profiles: {
      'kube-controller-manager': { version: from, cloudControllers: true },
      'cloud-controller-manager': { version: ccmVersion, cloudControllers: true },
    },
    identityProfiles,
    window,
  });
  const tolerance = timings.leaseDurationMs + 2 * (options.pollIntervalMs ?? 1_000) + timings.retryPeriodMs;
  const disagreements = compareOwnership(report, timeline, { toleranceMs: tolerance });
  const overlapSeconds = Object.fromEntries(
    MIGRATED.map((c) => [c, report.controllers[c]?.overlapSeconds ?? 0]),
  );
  const maxGapSeconds = Object.fromEntries(
    MIGRATED.map((c) => [c, report.controllers[c]?.maxGapSeconds ?? 0]),
  );
  return {
    leaderMigration: options.leaderMigration,
    figures: {
      migrated: MIGRATED,
      overlapSeconds,
      maxGapSeconds,
      worstOverlapSeconds: Math.max(...Object.values(overlapSeconds)),
      worstGapSeconds: Math.max(...Object.values(maxGapSeconds)),
      gapBoundSeconds: (timings.leaseDurationMs + 2 * timings.retryPeriodMs * (1 + JITTER_FACTOR)) / 1000,
    },
    ledger: report,
    timeline,
    disagreements,
    steps,
    entries: ledger.entries,
    observations: watcher.observations,
  };
}
