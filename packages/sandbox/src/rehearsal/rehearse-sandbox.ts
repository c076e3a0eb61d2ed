import {
  createLedger,
  defaultLeaderMigrationConfiguration,
  INFERRED_CONTROLLERS,
  logicalControllerOf,
  ownershipViews,
  parseKubernetesVersion,
  type InferredTimeline,
  type KubernetesVersion,
  type LeaseObservation,
  type LedgerAnalysis,
  type LedgerEntry,
  type LogicalController,
  type ManagerComponent,
  type ManagerProfile,
  type OwnershipDisagreement,
} from 'uproot/core';
import { DEFAULT_TIMINGS, type ElectionTimings } from 'uproot/election';
import { kubeLeaseWatcherApi, seededRandom, VirtualClock } from 'uproot/election/testing';
import { kubeConfigFor } from '../cloud-controllers/kube-api.js';
import { startSimulatedManager } from '../managers/index.js';
import {
  REHEARSAL_CLUSTER_CIDR,
  SANDBOX_IDENTITIES,
  startRehearsalCluster,
  type RehearsalCluster,
} from './rehearsal-cluster.js';
import { gapBoundSeconds, observationToleranceMs, rehearsalProfiles, runRehearsal } from './rehearsal-run.js';

export interface SandboxRehearsalOptions {
  readonly leaderMigration: boolean;
  readonly seed: number;
  readonly timings?: Partial<ElectionTimings>;
  readonly controlPlanes?: number;
  readonly workers?: number;
  readonly loadBalancers?: number;
  /** KCM N and N+1, and the CCM's version (default N+1). Default 1.26 → 1.27. */
  readonly fromVersion?: string;
  readonly toVersion?: string;
  readonly ccmVersion?: string;
  /** Cloud routes (--allocate-node-cidrs, --configure-cloud-routes), so `route` migrates too. Default true. */
  readonly routes?: boolean;
  readonly warmupMs?: number;
  readonly settleMs?: number;
  readonly restartDowntimeMs?: number;
  readonly ccmStaggerMs?: number;
  readonly pollIntervalMs?: number;
  readonly clock?: VirtualClock;
  /** Progress, as each step of the procedure starts (clock time). */
  readonly onStep?: (time: number, step: string) => void;
}

export interface SandboxRehearsalReport {
  readonly leaderMigration: boolean;
  readonly seed: number;
  readonly timings: ElectionTimings;
  /** The logical controllers the leader-migration configuration hands over (route only with cloud routes). */
  readonly migrated: readonly LogicalController[];
  /** LD + 2 × RP × (1 + jitter): the longest a dead holder's successor can take to start (docs/election.md). */
  readonly gapBoundSeconds: number;
  /** Ground truth: every controller start, stop and action, as the managers recorded them. */
  readonly ledger: LedgerAnalysis;
  /** The outside view: ownership inferred from the leases alone, as polled over the API. */
  readonly timeline: InferredTimeline;
  readonly disagreements: readonly OwnershipDisagreement[];
  readonly toleranceMs: number;
  readonly loadBalancers: readonly {
    service: string;
    before: string;
    after: string | undefined;
    elbCount: number;
  }[];
  readonly steps: readonly { readonly time: number; readonly step: string }[];
  readonly entries: readonly LedgerEntry[];
  readonly observations: readonly LeaseObservation[];
}

interface Spec {
  readonly component: ManagerComponent;
  readonly version: KubernetesVersion;
  readonly args: readonly string[];
  readonly profile: Omit<ManagerProfile, 'version'>;
}

const ALL = INFERRED_CONTROLLERS;

/**
 * Seeds 002/003's procedure on simulated managers over HTTP, in virtual time, against a sandbox API server and
 * AWS emulator: 3 control-plane nodes, workers, LoadBalancer Services with the in-tree provider's ELBs. With
 * leader migration: KCMs (N, in-tree, migration on) → a CCM per node (migration on, the DaemonSet's pods) →
 * each KCM restarted at N+1 with --cloud-provider=external and no migration flag. Without: KCMs in-tree →
 * each restarted external (the cloud controllers stop) → then the CCMs. A manager that exits on a lost lease
 * is restarted after a pause, as a kubelet restarts a static pod. The same driver as the memory-store
 * rehearsal (rehearse-migration.ts), with real managers and real cloud controllers.
 */
export async function rehearseSandboxMigration(
  options: SandboxRehearsalOptions,
): Promise<SandboxRehearsalReport> {
  const timings: ElectionTimings = { ...DEFAULT_TIMINGS, ...options.timings };
  const clock = options.clock ?? new VirtualClock(Date.UTC(2026, 0, 1));
  const random = seededRandom(options.seed);
  const from = parseKubernetesVersion(options.fromVersion ?? '1.26');
  const to = parseKubernetesVersion(options.toVersion ?? '1.27');
  const ccmVersion = parseKubernetesVersion(options.ccmVersion ?? to.raw);
  const routes = options.routes ?? true;
  const warmup = options.warmupMs ?? 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const lm = options.leaderMigration;

  const cluster = await startRehearsalCluster({
    clock,
    random,
    routes,
    ...(options.controlPlanes !== undefined ? { controlPlanes: options.controlPlanes } : {}),
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    ...(options.loadBalancers !== undefined ? { loadBalancers: options.loadBalancers } : {}),
  });
  try {
    const ledger = createLedger();
    const specs = managerSpecs({ from, to, ccmVersion, routes, leaderMigration: lm, timings });
    const controlPlanes = cluster.nodes.filter((n) => n.controlPlane).length;
    const admin = kubeConfigFor({ server: cluster.api.url, token: SANDBOX_IDENTITIES.admin.token });
    const run = await runRehearsal<Spec>({
      clock,
      nodes: cluster.nodes.slice(0, controlPlanes).map((n) => n.name),
      leaderMigration: lm,
      versions: { from, to, ccm: ccmVersion },
      specs,
      timings: {
        warmupMs: warmup,
        settleMs: options.settleMs ?? 60_000,
        downtimeMs: options.restartDowntimeMs ?? 20_000,
        staggerMs: options.ccmStaggerMs ?? 10_000,
      },
      words: {
        inTree: '--cloud-provider=aws',
        kcmMigrating: '--enable-leader-migration',
        ccmMigrating: '--enable-leader-migration',
      },
      start: (nodeIndex, spec) => {
        const node = cluster.nodes[nodeIndex]!;
        const manager = startSimulatedManager({
          component: spec.component,
          nodeName: node.name,
          args: spec.args,
          kubernetesVersion: spec.version,
          kube: cluster.kubeFor(spec.component),
          aws: cluster.awsFor(node),
          clock,
          random: seededRandom(Math.floor(random() * 2 ** 32)),
          ledger,
        });
        return { manager, profile: { version: spec.version, ...spec.profile } };
      },
      watchApi: kubeLeaseWatcherApi(admin, clock),
      pollIntervalMs,
      electionTimings: timings,
      ...(options.onStep ? { onStep: options.onStep } : {}),
    });

    const config = defaultLeaderMigrationConfiguration(from);
    const migrated = (config?.controllerLeaders ?? [])
      .map((l) => logicalControllerOf(l.name))
      .filter((c): c is LogicalController => c !== undefined && (routes || c !== 'route'));
    const toleranceMs = observationToleranceMs(timings, pollIntervalMs);
    const views = ownershipViews({
      entries: ledger.entries,
      observations: run.observations,
      profiles: rehearsalProfiles(from, ccmVersion),
      identityProfiles: run.identityProfiles,
      window: { from: run.start + warmup / 2, to: run.end },
      controllers: ALL,
      inferred: routes ? ALL : ALL.filter((c) => c !== 'route' && c !== 'nodeipam'),
      toleranceMs,
      compared: [...migrated, 'cloud-node'],
    });
    const loadBalancers = cluster.services.map((s) => ({
      service: `${s.namespace}/${s.name}`,
      before: s.hostname,
      after: hostnameOf(cluster, s.namespace, s.name),
      elbCount: cluster.aws.state.elb.list().filter((lb) => lb.name === s.loadBalancerName).length,
    }));
    return {
      leaderMigration: lm,
      seed: options.seed,
      timings,
      migrated,
      gapBoundSeconds: gapBoundSeconds(timings),
      ...views,
      toleranceMs,
      loadBalancers,
      steps: run.steps,
      entries: ledger.entries,
      observations: run.observations,
    };
  } finally {
    await cluster.close();
  }
}

/** KCM N in-tree (migrating with leader migration), KCM N+1 external, and the CCM, as their flags. */
function managerSpecs(o: {
  readonly from: KubernetesVersion;
  readonly to: KubernetesVersion;
  readonly ccmVersion: KubernetesVersion;
  readonly routes: boolean;
  readonly leaderMigration: boolean;
  readonly timings: ElectionTimings;
}): { kcmOld: Spec; kcmNew: Spec; ccm: Spec } {
  const lm = o.leaderMigration;
  const election = [
    `--leader-elect-lease-duration=${o.timings.leaseDurationMs}ms`,
    `--leader-elect-renew-deadline=${o.timings.renewDeadlineMs}ms`,
    `--leader-elect-retry-period=${o.timings.retryPeriodMs}ms`,
  ];
  const cidrs = o.routes ? ['--allocate-node-cidrs=true', `--cluster-cidr=${REHEARSAL_CLUSTER_CIDR}`] : [];
  const cloudRoutes = [`--configure-cloud-routes=${o.routes}`];
  const migration = (v: KubernetesVersion) =>
    lm ? { migration: defaultLeaderMigrationConfiguration(v)! } : {};
  const migrating = lm ? ['--enable-leader-migration'] : [];
  return {
    kcmOld: {
      component: 'kube-controller-manager',
      version: o.from,
      args: [
        '--cloud-provider=aws',
        '--use-service-account-credentials=true',
        ...cidrs,
        ...cloudRoutes,
        ...election,
        ...migrating,
      ],
      profile: { cloudControllers: true, ...migration(o.from) },
    },
    kcmNew: {
      component: 'kube-controller-manager',
      version: o.to,
      args: ['--cloud-provider=external', '--use-service-account-credentials=true', ...cidrs, ...election],
      profile: { cloudControllers: false },
    },
    ccm: {
      component: 'cloud-controller-manager',
      version: o.ccmVersion,
      args: ['--cloud-provider=aws', ...cidrs, ...cloudRoutes, ...election, ...migrating],
      profile: { cloudControllers: true, ...migration(o.ccmVersion) },
    },
  };
}

function hostnameOf(cluster: RehearsalCluster, namespace: string, name: string): string | undefined {
  const svc = cluster.api.store.get('services', namespace, name) as
    { status?: { loadBalancer?: { ingress?: { hostname?: string }[] } } } | undefined;
  return svc?.status?.loadBalancer?.ingress?.[0]?.hostname;
}
