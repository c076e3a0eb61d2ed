/**
 * The rehearsal on election's own managers (runControllerManager) with an in-memory lease store: every
 * controller writes to the ownership ledger and does no work, so it shows leader election and migration alone.
 * rehearse-sandbox.ts runs the same procedure on the sandbox's managers over HTTP.
 */
import {
  createLedger,
  defaultLeaderMigrationConfiguration,
  ownershipViews,
  parseKubernetesVersion,
  type InferredTimeline,
  type KubernetesVersion,
  type LeaderMigrationConfiguration,
  type LeaseObservation,
  type LedgerAnalysis,
  type LedgerEntry,
  type ManagerComponent,
  type OwnershipDisagreement,
  controllerFigures,
} from 'uproot/core';
import {
  DEFAULT_TIMINGS,
  runControllerManager,
  type ElectionTimings,
  type LeaseApi,
  type LeaseLock,
} from 'uproot/election';
import { MemoryLeaseStore, seededRandom, VirtualClock } from 'uproot/election/testing';
import { ledgerControllers } from './ledger-controllers.js';
import { gapBoundSeconds, observationToleranceMs, rehearsalProfiles, runRehearsal } from './rehearsal-run.js';

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

interface Spec {
  readonly component: ManagerComponent;
  readonly version: KubernetesVersion;
  readonly migration: boolean;
  readonly cloudProvider: string;
}

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
  const from = parseKubernetesVersion(options.fromVersion ?? '1.26');
  const to = parseKubernetesVersion(options.toVersion ?? '1.27');
  const ccmVersion = parseKubernetesVersion(options.ccmVersion ?? to.raw);
  const warmup = options.warmupMs ?? 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const random = seededRandom(options.seed);
  const store = options.leases ? undefined : new MemoryLeaseStore({ clock });
  const leases: RehearsalLeases = options.leases ?? {
    lock: (identity, name) => store!.lock({ namespace: 'kube-system', name, identity }),
    watchApi: store!.api('uproot-status'),
  };
  const ledger = createLedger();
  let serial = 0;

  const start = (node: number, spec: Spec) => {
    const identity = `cp-${node}_${spec.component === 'kube-controller-manager' ? 'kcm' : 'ccm'}-${(++serial).toString(16).padStart(4, '0')}`;
    const config = spec.migration
      ? (options.migrationConfig ?? defaultLeaderMigrationConfiguration(spec.version))
      : undefined;
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
        actionIntervalMs: options.actionIntervalMs ?? 5_000,
      }),
      timings,
      clock,
      random: seededRandom(Math.floor(random() * 2 ** 32)),
    });
    return {
      manager: { identity, exited: manager.done, stop: () => manager.stop() },
      profile: {
        version: spec.version,
        ...(config ? { migration: config } : {}),
        cloudControllers: spec.component === 'cloud-controller-manager' || spec.cloudProvider === 'aws',
      },
    };
  };

  const kcm = 'kube-controller-manager';
  const run = await runRehearsal<Spec>({
    clock,
    nodes: Array.from({ length: options.nodes ?? 3 }, (_, node) => `cp-${node}`),
    leaderMigration: options.leaderMigration,
    versions: { from, to, ccm: ccmVersion },
    specs: {
      kcmOld: { component: kcm, version: from, migration: options.leaderMigration, cloudProvider: 'aws' },
      kcmNew: { component: kcm, version: to, migration: false, cloudProvider: 'external' },
      ccm: {
        component: 'cloud-controller-manager',
        version: ccmVersion,
        migration: options.leaderMigration,
        cloudProvider: 'aws',
      },
    },
    timings: {
      warmupMs: warmup,
      settleMs: options.settleMs ?? 60_000,
      downtimeMs: options.restartDowntimeMs ?? 20_000,
      staggerMs: options.ccmStaggerMs ?? 10_000,
    },
    words: { inTree: 'in-tree', kcmMigrating: 'leader migration on', ccmMigrating: 'leader migration' },
    start,
    watchApi: leases.watchApi,
    pollIntervalMs,
    electionTimings: timings,
  });

  const views = ownershipViews({
    entries: ledger.entries,
    observations: run.observations,
    profiles: rehearsalProfiles(from, ccmVersion),
    identityProfiles: run.identityProfiles,
    window: { from: run.start + (options.observeFromMs ?? warmup / 2), to: run.end },
    controllers: ['route', 'service', 'cloud-node-lifecycle', 'nodeipam', 'cloud-node'],
    toleranceMs: observationToleranceMs(timings, pollIntervalMs),
  });
  const overlapSeconds = Object.fromEntries(
    MIGRATED.map((c) => [c, controllerFigures(views.ledger.controllers[c])?.overlapSeconds ?? 0]),
  );
  const maxGapSeconds = Object.fromEntries(
    MIGRATED.map((c) => [c, controllerFigures(views.ledger.controllers[c])?.maxGapSeconds ?? 0]),
  );
  return {
    leaderMigration: options.leaderMigration,
    figures: {
      migrated: MIGRATED,
      overlapSeconds,
      maxGapSeconds,
      worstOverlapSeconds: Math.max(...Object.values(overlapSeconds)),
      worstGapSeconds: Math.max(...Object.values(maxGapSeconds)),
      gapBoundSeconds: gapBoundSeconds(timings),
    },
    ...views,
    steps: run.steps,
    entries: ledger.entries,
    observations: run.observations,
  };
}
