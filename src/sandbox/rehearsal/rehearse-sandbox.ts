import { seededRandom, VirtualClock } from '../../clock/index.js';
import { parseKubernetesVersion, type KubernetesVersion } from '../../core/kubernetes-version/index.js';
import {
  defaultLeaderMigrationConfiguration,
  logicalControllerOf,
  type LogicalController,
  type ManagerComponent,
} from '../../core/leader-migration/index.js';
import {
  analyzeLedger,
  compareOwnership,
  createLedger,
  inferOwnership,
  type InferredTimeline,
  type LeaseObservation,
  type LedgerAnalysis,
  type LedgerEntry,
  type ManagerProfile,
  type OwnershipDisagreement,
} from '../../core/ownership/index.js';
import { DEFAULT_TIMINGS, JITTER_FACTOR, type ElectionTimings } from '../../election/index.js';
import { kubeLeaseWatcherApi, watchLeases } from '../../election/testing.js';
import { rollingMigration } from '../../election/rehearsal/rolling-migration.js';
import { kubeConfigFor } from '../cloud-controllers/kube-api.js';
import { startSimulatedManager, type SimulatedManager } from '../managers/index.js';
import {
  REHEARSAL_CLUSTER_CIDR,
  SANDBOX_IDENTITIES,
  startRehearsalCluster,
  type RehearsalCluster,
} from './rehearsal-cluster.js';

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

const ALL: readonly LogicalController[] = [
  'route',
  'service',
  'cloud-node-lifecycle',
  'nodeipam',
  'cloud-node',
];

/**
 * Seeds 002/003's procedure on simulated managers over HTTP, in virtual time, against a sandbox API server and
 * AWS emulator: 3 control-plane nodes, workers, LoadBalancer Services with the in-tree provider's ELBs. With
 * leader migration: KCMs (N, in-tree, migration on) → a CCM per node (migration on, the DaemonSet's pods) →
 * each KCM restarted at N+1 with --cloud-provider=external and no migration flag. Without: KCMs in-tree →
 * each restarted external (the cloud controllers stop) → then the CCMs. A manager that exits on a lost lease
 * is restarted after a pause, as a kubelet restarts a static pod. The same shape as the election library's
 * memory-store rehearsal (rehearseMigration), with real managers and real cloud controllers.
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
  const settle = options.settleMs ?? 60_000;
  const downtime = options.restartDowntimeMs ?? 20_000;
  const stagger = options.ccmStaggerMs ?? 10_000;
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
    const steps: { time: number; step: string }[] = [];
    const step = (text: string): void => {
      steps.push({ time: clock.now(), step: text });
      options.onStep?.(clock.now(), text);
    };
    const identityProfiles: Record<string, ManagerProfile> = {};
    const slots = new Map<string, SimulatedManager>();
    let stopping = false;

    const election = [
      `--leader-elect-lease-duration=${timings.leaseDurationMs}ms`,
      `--leader-elect-renew-deadline=${timings.renewDeadlineMs}ms`,
      `--leader-elect-retry-period=${timings.retryPeriodMs}ms`,
    ];
    const cidrs = routes ? ['--allocate-node-cidrs=true', `--cluster-cidr=${REHEARSAL_CLUSTER_CIDR}`] : [];
    const cloudRoutes = [`--configure-cloud-routes=${routes}`];
    const migration = (v: KubernetesVersion) =>
      lm ? { migration: defaultLeaderMigrationConfiguration(v)! } : {};
    const kcmOld: Spec = {
      component: 'kube-controller-manager',
      version: from,
      args: [
        '--cloud-provider=aws',
        '--use-service-account-credentials=true',
        ...cidrs,
        ...cloudRoutes,
        ...election,
        ...(lm ? ['--enable-leader-migration'] : []),
      ],
      profile: { cloudControllers: true, ...migration(from) },
    };
    const kcmNew: Spec = {
      component: 'kube-controller-manager',
      version: to,
      args: ['--cloud-provider=external', '--use-service-account-credentials=true', ...cidrs, ...election],
      profile: { cloudControllers: false },
    };
    const ccm: Spec = {
      component: 'cloud-controller-manager',
      version: ccmVersion,
      args: [
        '--cloud-provider=aws',
        ...cidrs,
        ...cloudRoutes,
        ...election,
        ...(lm ? ['--enable-leader-migration'] : []),
      ],
      profile: { cloudControllers: true, ...migration(ccmVersion) },
    };

    const launch = (nodeIndex: number, spec: Spec): void => {
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
      identityProfiles[manager.identity] = { version: spec.version, ...spec.profile };
      const slot = `${spec.component}@${nodeIndex}`;
      slots.set(slot, manager);
      void manager.exited.then(({ code, reason }) => {
        if (code === 0 || stopping) return;
        step(`${manager.identity} exited (${reason}); restarting`);
        void clock.sleep(downtime / 2).then(() => {
          if (!stopping && slots.get(slot) === manager) launch(nodeIndex, spec);
        });
      });
    };
    const kill = async (component: ManagerComponent, nodeIndex: number): Promise<void> => {
      await slots.get(`${component}@${nodeIndex}`)?.stop();
    };

    const controlPlanes = cluster.nodes.filter((n) => n.controlPlane).length;
    const watchAbort = new AbortController();
    const admin = kubeConfigFor({ server: cluster.api.url, token: SANDBOX_IDENTITIES.admin.token });
    const watcher = watchLeases({
      api: kubeLeaseWatcherApi(admin, clock),
      clock,
      signal: watchAbort.signal,
      intervalMs: pollIntervalMs,
    });
    const start = clock.now();
    const script = (): Promise<void> =>
      rollingMigration({
        clock,
        nodes: cluster.nodes.slice(0, controlPlanes).map((n) => n.name),
        leaderMigration: lm,
        versions: { from, to, ccm: ccmVersion },
        specs: { kcmOld, kcmNew, ccm },
        timings: { warmupMs: warmup, settleMs: settle, downtimeMs: downtime, staggerMs: stagger },
        words: {
          inTree: '--cloud-provider=aws',
          kcmMigrating: '--enable-leader-migration',
          ccmMigrating: '--enable-leader-migration',
        },
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
    await Promise.all([...slots.values()].map((m) => m.stop()));
    await clock.advanceBy(timings.retryPeriodMs);
    await watcher.done;

    const window = { from: start + warmup / 2, to: end };
    const report = analyzeLedger(ledger.entries, { window, controllers: ALL });
    const timeline = inferOwnership({
      observations: watcher.observations,
      profiles: {
        'kube-controller-manager': { version: from, cloudControllers: true },
        'cloud-controller-manager': { version: ccmVersion, cloudControllers: true },
      },
      identityProfiles,
      window,
      controllers: routes ? ALL : ALL.filter((c) => c !== 'route' && c !== 'nodeipam'),
    });
    const toleranceMs = timings.leaseDurationMs + 2 * pollIntervalMs + timings.retryPeriodMs;
    const config = defaultLeaderMigrationConfiguration(from);
    const migrated = (config?.controllerLeaders ?? [])
      .map((l) => logicalControllerOf(l.name))
      .filter((c): c is LogicalController => c !== undefined && (routes || c !== 'route'));
    const disagreements = compareOwnership(report, timeline, {
      toleranceMs,
      controllers: [...migrated, 'cloud-node'],
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
      gapBoundSeconds: (timings.leaseDurationMs + 2 * timings.retryPeriodMs * (1 + JITTER_FACTOR)) / 1000,
      ledger: report,
      timeline,
      disagreements,
      toleranceMs,
      loadBalancers,
      steps,
      entries: ledger.entries,
      observations: watcher.observations,
    };
  } finally {
    await cluster.close();
  }
}

function hostnameOf(cluster: RehearsalCluster, namespace: string, name: string): string | undefined {
  const svc = cluster.api.store.get('services', namespace, name) as
    { status?: { loadBalancer?: { ingress?: { hostname?: string }[] } } } | undefined;
  return svc?.status?.loadBalancer?.ingress?.[0]?.hostname;
}
