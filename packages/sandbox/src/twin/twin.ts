import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom, type Clock, type Random } from 'uproot';
import { createLedger, type Ledger, type LedgerAnalysis } from 'uproot/core';
import type { AwsEmulator } from '../aws/index.js';
import { startKubeApiServer, type KubeApiServer } from '../apiserver/index.js';
import { parseScenario, type Scenario, type ScenarioInput } from '../scenarios/index.js';
import { startAwsAccount } from './boot/aws-account.js';
import { seedClusters, seedRancherRke1 } from './boot/seed-clusters.js';
import { twinIdentities, withNodeIdentity, type TwinIdentities } from './boot/identities.js';
import { initialConfigs } from './boot/initial-configs.js';
import { writeTwinFiles } from './boot/twin-files.js';
import { replayUpgrade } from './boot/replay-upgrade.js';
import { EventRecorder } from './events/event-recorder.js';
import { HelmController } from './helm/helm-controller.js';
import { ManifestApplier } from './helm/manifest-applier.js';
import { R, TwinKube } from './kube/twin-kube.js';
import { KubeadmDriver, writeInitialKubeadmFiles } from './kubeadm/kubeadm-driver.js';
import { planClusterLayout, type ClusterLayout } from './layout/cluster-layout.js';
import { snapshotLayout } from './layout/snapshot-layout.js';
import { replayRecordedNodes } from './boot/replay-snapshot.js';
import { distroVersion, type DistroVersion } from './layout/versions.js';
import type { ManagerLauncher } from './managers/manager-launcher.js';
import { simulatedManagerLauncher } from './managers/simulated-launcher.js';
import { NodeAgent } from './nodes/node-agent.js';
import { NodeFleet } from './nodes/node-fleet.js';
import { kubeletNodeName } from './nodes/node-name.js';
import { PodRunner } from './nodes/pod-runner.js';
import { runtimeInfoFor } from './nodes/runtime-info.js';
import { initialClusterYaml } from './rke/rke-cluster-config.js';
import { RancherRke1Controller, rke1ClusterId } from './rke/rancher-rke1.js';
import { RkeUp, type RkeUpResult } from './rke/rke-up.js';
import { RANCHER_NAMESPACE } from './rke2/provisioning-cluster.js';
import { Rke2Planner } from './rke2/rke2-planner.js';
import { writeKubeconfigSecret } from './rke2/kubeconfig-secret.js';
import { DaemonSetController } from './scheduling/daemonset-controller.js';
import { DisruptionController } from './scheduling/disruption-controller.js';
import { Scheduler } from './scheduling/scheduler.js';
import { twinStatus, type TwinStatus } from './twin-status.js';
import { servingGitVersion } from './components/serving-version.js';
import { ledgerAnalysis, ledgerReport, type LedgerReport } from './ledger-report.js';
import { journeyRestarts } from './nodes/restart-count.js';
import { Cleanups } from './runtime/cleanups.js';
import { TwinFaults } from './faults/twin-faults.js';

export { ledgerAnalysis, ledgerReport, type LedgerReport } from './ledger-report.js';

/**
 * A running twin: a Kubernetes API server (plus Rancher's management API for RKE2), an AWS account, and the
 * simulated machines, controllers and distribution machinery of one scenario, all on one clock.
 */
export interface StartTwinOptions {
  readonly scenario: Scenario | ScenarioInput;
  readonly clock: Clock;
  /** Seeded from the scenario when omitted, so a scenario replays identically. */
  readonly random?: Random;
  /** Where the twin keeps its files: kubeconfig, aws.env, cluster.yml (RKE), nodes/<node>/... (kubeadm). */
  readonly dir: string;
  /** Total node count override (`--nodes`); control-plane and etcd nodes stay as the scenario says. */
  readonly nodes?: number;
  /** Starts controller managers; the simulated KCM/CCM when omitted. */
  readonly launcher?: ManagerLauncher;
  /**
   * Rancher's local cluster shared with other twins (a fleet): the RKE2 twin registers its provisioning
   * Cluster and kubeconfig Secret there instead of starting a management API server of its own.
   */
  readonly rancher?: { readonly server: KubeApiServer; readonly kube: TwinKube };
  readonly log?: (line: string) => void;
}

export interface Twin {
  readonly scenario: Scenario;
  readonly dir: string;
  readonly clock: Clock;
  readonly layout: ClusterLayout;
  readonly version: DistroVersion;
  readonly downstream: KubeApiServer;
  /** Rancher's management API server (RKE2 twins only). */
  readonly management: KubeApiServer | undefined;
  readonly aws: AwsEmulator;
  readonly identities: TwinIdentities;
  /** In-process access to the downstream cluster's objects. */
  readonly kube: TwinKube;
  readonly nodes: NodeFleet;
  readonly ledger: Ledger;
  /** The faults the scenario turned on (armed once the twin has booted) and how often each fired. */
  readonly faults: TwinFaults;
  readonly files: {
    readonly kubeconfig: string;
    readonly awsEnv: string;
    readonly rkeConfig: string | undefined;
    /** kubeadm: the machines' folders, DIR/nodes/<node>/ (the files their kubelets watch). */
    readonly nodes: string | undefined;
  };
  /** Context names in the kubeconfig. */
  readonly contexts: { readonly downstream: string; readonly rancher: string | undefined };
  /** RKE: `rke up` with this cluster.yml text (rejects for other distributions). */
  applyRkeConfig(text: string, file?: string): Promise<RkeUpResult>;
  /** Per-controller ownership: the rows `uproot sandbox ledger` and the demo print (ledgerReport of the analysis). */
  ledgerReport(): LedgerReport;
  /** The ledger analysed from the twin's start (or its first entry) to now: what ledgerReport's rows come from. */
  ledgerAnalysis(): LedgerAnalysis;
  status(): TwinStatus;
  close(): Promise<void>;
}

function fork(random: Random): Random {
  return seededRandom(Math.floor(random() * 2 ** 32));
}

function isParsed(s: Scenario | ScenarioInput): s is Scenario {
  return typeof s === 'object' && s !== null && 'timings' in s && 'defects' in s && 'rbac' in s;
}

/** What every phase of a twin's start shares: the scenario as parsed, its random stream, what to stop. */
interface Boot {
  readonly options: StartTwinOptions;
  readonly scenario: Scenario;
  readonly clock: Clock;
  readonly dir: string;
  readonly random: Random;
  readonly log: (line: string) => void;
  readonly layout: ClusterLayout;
  readonly version: DistroVersion;
  readonly initialIdentities: TwinIdentities;
  readonly cleanups: Cleanups;
  /** The faults a user turned on (scenario `faults:`, `--faults`), armed once the twin has booted. */
  readonly faults: TwinFaults;
  /** RKE under Rancher's management (its options in the v3 Cluster, not in a cluster.yml). */
  readonly rancherRke: boolean;
}

/** The API servers of the twin and in-process access to their objects. */
interface ApiServers {
  readonly downstream: KubeApiServer;
  readonly management: KubeApiServer | undefined;
  readonly kube: TwinKube;
  readonly managementKube: TwinKube | undefined;
  /** Where `/version` reads its gitVersion from from now on. */
  serveVersion(gitVersion: () => string): void;
}

/** The cluster's own machinery, running before the machines exist. */
interface Machinery {
  readonly ledger: Ledger;
  readonly events: EventRecorder;
  readonly applier: ManifestApplier;
  readonly fleet: NodeFleet;
  readonly launcher: ManagerLauncher;
  readonly pods: PodRunner;
}

type KubeadmMachines = { agent: NodeAgent; nodeDir: string }[];

/** `rke up` and the cluster.yml it was run with (RKE; for other distributions rkeUp is idle). */
interface RkeMachinery {
  readonly rkeUp: RkeUp;
  readonly rkeConfigPath: string | undefined;
  readonly clusterYaml: { readonly text: string; readonly file: string } | undefined;
}

export async function startTwin(options: StartTwinOptions): Promise<Twin> {
  const boot = resolveBoot(options);
  const closeAll = () => boot.cleanups.closeAll();
  try {
    const servers = await startApiServers(boot);
    const { aws, provisioningCluster } = await seedClustersAndAccount(boot, servers);
    const machinery = startMachinery(boot, servers, aws);
    const kubeadmMachines = addMachines(boot, servers, machinery, aws);
    const rke = await bootMachines(boot, servers, machinery, provisioningCluster);
    startDistributionLoop(boot, servers, machinery, rke, kubeadmMachines);

    // The `-node` context is the kubelet of the first machine (system:node:<its node name>), so the node
    // authorizer's rules and NodeRestriction apply to it as to that kubelet's own credentials.
    const identities = withNodeIdentity(boot.initialIdentities, machinery.fleet.all()[0]?.nodeName);
    servers.downstream.addIdentity(identities.node);
    replayUpgrade({
      scenario: boot.scenario,
      version: boot.version,
      managementKube: servers.managementKube,
      rkeUp: rke.rkeUp,
      clusterYaml: rke.clusterYaml,
      kubeadmMachines,
      log: boot.log,
    });
    const rancher = options.rancher ? undefined : servers.management;
    boot.faults.arm({ downstream: servers.downstream, rancher, aws, fleet: machinery.fleet });
    boot.cleanups.push(() => boot.faults.stop());
    const files = writeTwinFiles({
      dir: boot.dir,
      clusterName: boot.scenario.clusterName,
      downstream: servers.downstream,
      // A shared local cluster is the fleet's: its kubeconfig context is in the fleet's files.
      management: options.rancher ? undefined : servers.management,
      identities,
      aws,
    });
    return twinHandle({ boot, servers, aws, machinery, rke, identities, files, closeAll });
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** The scenario parsed, the node counts the options ask for, the layout, versions and identities drawn. */
function resolveBoot(options: StartTwinOptions): Boot {
  const scenario = isParsed(options.scenario) ? options.scenario : parseScenario(options.scenario);
  const { clock, dir } = options;
  const random = options.random ?? seededRandom(scenario.seed);
  const log = options.log ?? (() => undefined);
  mkdirSync(dir, { recursive: true });
  const total = options.nodes;
  const counts =
    total === undefined
      ? scenario.nodes
      : {
          controlPlane: Math.min(scenario.nodes.controlPlane, total),
          etcd: Math.min(scenario.nodes.etcd, Math.max(0, total - scenario.nodes.controlPlane)),
          workers: Math.max(0, total - scenario.nodes.controlPlane - scenario.nodes.etcd),
        };
  // A `uproot snapshot` record's machines are the recorded ones (the draw stays, so other ids do not move).
  const generated = planClusterLayout(scenario, fork(random), counts);
  const layout = scenario.snapshot ? snapshotLayout(scenario, scenario.snapshot) : generated;
  const version = distroVersion(scenario.distribution, scenario.kubernetesVersion);
  const initialIdentities = twinIdentities(fork(random));
  // Controllers get their service account tokens from TokenRequest; this draw (once static tokens) stays
  // so a seed gives the same uids and names as before.
  fork(random);
  return {
    options,
    scenario,
    clock,
    dir,
    random,
    log,
    layout,
    version,
    initialIdentities,
    cleanups: new Cleanups(log),
    faults: new TwinFaults(scenario.faults, { clock, seed: scenario.seed, log }),
    rancherRke: scenario.distribution === 'rke' && scenario.rke.managedBy === 'rancher',
  };
}

/**
 * The downstream API server and, under Rancher, the management one (the fleet's shared local cluster when
 * given). `/version` follows the kube-apiserver instances as they roll (decision 0012); until the machines
 * exist it is the scenario's version.
 */
async function startApiServers(boot: Boot): Promise<ApiServers> {
  const { scenario, clock, random, version, initialIdentities, cleanups, options } = boot;
  let serving = (): string => version.kubelet;
  let lastSpec = { gitVersion: version.kubelet };
  const downstream = await startKubeApiServer({
    version: () => {
      const gitVersion = serving();
      if (gitVersion !== lastSpec.gitVersion) lastSpec = { gitVersion };
      return lastSpec;
    },
    clock,
    random: fork(random),
    identities: [
      initialIdentities.admin,
      initialIdentities.kcm,
      initialIdentities.ccm,
      ...(scenario.distribution === 'rke2' ? [initialIdentities.clusterOwner] : []),
    ],
    watchWindow: Math.max(10_000, boot.layout.instances.length * 20),
  });
  cleanups.push(() => downstream.close());
  const underRancher = scenario.distribution === 'rke2' || boot.rancherRke;
  const ownManagement =
    underRancher && !options.rancher
      ? await startKubeApiServer({ clock, random: fork(random), identities: [initialIdentities.rancher] })
      : undefined;
  if (ownManagement) cleanups.push(() => ownManagement.close());
  const management = underRancher ? (options.rancher?.server ?? ownManagement) : undefined;
  return {
    downstream,
    management,
    kube: new TwinKube(downstream.store, clock),
    managementKube: management ? (options.rancher?.kube ?? new TwinKube(management.store, clock)) : undefined,
    serveVersion: (gitVersion) => {
      serving = gitVersion;
    },
  };
}

/** What the clusters hold before anything runs, Rancher's kubeconfig Secret, and the AWS account. */
async function seedClustersAndAccount(
  boot: Boot,
  servers: ApiServers,
): Promise<{
  aws: AwsEmulator;
  provisioningCluster: ReturnType<typeof seedClusters>['provisioningCluster'];
}> {
  const { scenario, layout, version, clock, random } = boot;
  const { kube, managementKube } = servers;
  const { services, provisioningCluster } = seedClusters({
    scenario,
    layout,
    version,
    kube,
    managementKube,
    clock,
  });
  if (managementKube && provisioningCluster) {
    writeKubeconfigSecret({
      management: managementKube,
      cluster: managementKube.get(R.provisioningClusters, RANCHER_NAMESPACE, scenario.clusterName)!,
      downstream: servers.downstream,
      owner: boot.initialIdentities.clusterOwner,
    });
  }
  const aws = await startAwsAccount({
    scenario,
    layout,
    services,
    kube,
    clock,
    idsRandom: fork(random),
    faultRandom: fork(random),
  });
  boot.cleanups.push(() => aws.close());
  return { aws, provisioningCluster };
}

/** The cluster's own machinery: node fleet, scheduler, DaemonSets, pods, helm-controller, managers. */
function startMachinery(boot: Boot, servers: ApiServers, aws: AwsEmulator): Machinery {
  const { scenario, clock, random, log, version, initialIdentities } = boot;
  const { kube, downstream } = servers;
  const ledger = createLedger();
  const events = new EventRecorder(kube, fork(random));
  const applier = new ManifestApplier(kube);
  const fleet = new NodeFleet({
    kube,
    clock,
    events,
    leaseRenewMs: scenario.timings.nodeLeaseRenewSeconds * 1000,
    log,
  });
  const launcher = boot.faults.wrapLauncher(
    boot.options.launcher ??
      simulatedManagerLauncher({
        server: downstream.url,
        certificateAuthority: downstream.certificateAuthority,
        tokens: {
          'kube-controller-manager': initialIdentities.kcm.token,
          'cloud-controller-manager': initialIdentities.ccm.token,
        },
        aws,
        clock,
        random: fork(random),
        ledger,
      }),
  );
  const scheduler = new Scheduler(kube, clock, events, log);
  const daemonsets = new DaemonSetController(kube, clock, events, log);
  const disruption = new DisruptionController(kube, clock, events, log);
  const pods = new PodRunner(kube, clock, fleet, launcher, events, log);
  const helm = new HelmController(kube, clock, applier, events, log);
  servers.serveVersion(() => servingGitVersion(fleet.all(), version.kubelet));
  fleet.start();
  scheduler.start();
  daemonsets.start();
  disruption.start();
  pods.start();
  helm.start();
  boot.cleanups.push(async () => {
    scheduler.stop();
    daemonsets.stop();
    disruption.stop();
    helm.stop();
    await pods.stop();
    await fleet.stop();
  });
  return { ledger, events, applier, fleet, launcher, pods };
}

/** The machines of the layout in the fleet; kubeadm's with the folders their kubelets watch. */
function addMachines(
  boot: Boot,
  servers: ApiServers,
  machinery: Machinery,
  aws: AwsEmulator,
): KubeadmMachines {
  const { scenario, dir, layout, version, clock, log } = boot;
  const { events, launcher, fleet } = machinery;
  const runtime = runtimeInfoFor(scenario.distribution, version);
  const cloud = scenario.cloudProvider === 'in-tree' ? 'aws' : 'external';
  const kubeadmDirs: KubeadmMachines = [];
  for (const instance of layout.instances) {
    const nodeDir =
      scenario.distribution === 'kubeadm'
        ? join(dir, 'nodes', kubeletNodeName({ cloudProvider: cloud, hostnameOverride: undefined }, instance))
        : undefined;
    const agent = new NodeAgent(instance, {
      kube: servers.kube,
      clock,
      events,
      region: layout.region,
      runtime,
      launcher,
      nodeDir,
      log,
      restartDelayMs: scenario.timings.componentRestartSeconds * 1000,
      podCidr: `10.${42 + (instance.index >> 8)}.${instance.index & 255}.0/24`,
      onKubeletStart: (name) => fleet.kubeletStarted(name),
      // The machine's metadata as its own endpoint serves it, through the shared port's prefix: the same
      // answers and rules, without a listening socket per node for the whole boot. The endpoints open when
      // something asks (a manager at launch, `exposeTwin` for every node).
      imdsEndpoint: aws.imdsEndpoint(instance.instanceId),
    });
    fleet.add(agent);
    if (nodeDir) {
      writeInitialKubeadmFiles(nodeDir, instance, version, cloud, {
        cloudRoutes: scenario.network.cloudRoutes,
      });
      kubeadmDirs.push({ agent, nodeDir });
    }
  }
  return kubeadmDirs;
}

/** The machines booted with their distribution's configuration; RKE's cluster.yml written or seeded. */
async function bootMachines(
  boot: Boot,
  servers: ApiServers,
  machinery: Machinery,
  provisioningCluster: ReturnType<typeof seedClusters>['provisioningCluster'],
): Promise<RkeMachinery> {
  const { scenario, dir, layout, version, clock, log, rancherRke } = boot;
  const { kube, managementKube } = servers;
  const { fleet } = machinery;
  // Under Rancher the RKE options live in the management cluster's v3 Cluster, not in a file.
  const rkeConfigPath = scenario.distribution === 'rke' && !rancherRke ? join(dir, 'cluster.yml') : undefined;
  const clusterYaml =
    scenario.distribution === 'rke'
      ? {
          text: initialClusterYaml(scenario, layout, version),
          file: rkeConfigPath ?? `clusters.management.cattle.io/${rke1ClusterId(scenario.clusterName)}`,
        }
      : undefined;
  if (clusterYaml && rkeConfigPath) writeFileSync(rkeConfigPath, clusterYaml.text);
  if (clusterYaml && rancherRke && managementKube)
    seedRancherRke1(managementKube, scenario, clusterYaml.text, clock.now());
  const rkeUp = new RkeUp({
    agents: fleet.all(),
    kube,
    clock,
    rolloutDelayMs: scenario.timings.rolloutNodeDelaySeconds * 1000,
    log,
  });
  rkeUp.setVersion(version);
  // Every machine reads its instance metadata as it boots (a few at a time, like instances coming up).
  const agents = fleet.all();
  for (let i = 0; i < agents.length; i += 50)
    await Promise.all(agents.slice(i, i + 50).map((a) => a.readMetadata()));
  const configs = initialConfigs({
    scenario,
    version,
    agents: fleet.all(),
    provisioningCluster,
    rkeUp,
    clusterYaml,
  });
  for (const agent of fleet.all()) await agent.boot(configs.get(agent)!);
  // The cluster stands as `rke up` left it, role taints synced onto the Nodes.
  if (scenario.distribution === 'rke') rkeUp.syncNodeTaints();
  if (scenario.snapshot) replayRecordedNodes(kube, scenario.snapshot, clock);
  return { rkeUp, rkeConfigPath, clusterYaml };
}

/**
 * The distribution's own loop: Rancher's planner (RKE2) or RKE1 controller, a kubeadm kubelet watching its
 * files; and outside RKE2 the scenario's pre-installed CCM chart.
 */
function startDistributionLoop(
  boot: Boot,
  servers: ApiServers,
  machinery: Machinery,
  rke: RkeMachinery,
  kubeadmMachines: KubeadmMachines,
): void {
  const { scenario, layout, version, clock, log, cleanups } = boot;
  const { kube, managementKube } = servers;
  const { fleet, events, applier } = machinery;
  if (scenario.distribution === 'rke2' && managementKube) {
    const planner = new Rke2Planner({
      management: managementKube,
      downstream: kube,
      fleet,
      clock,
      events,
      applier,
      clusterName: scenario.clusterName,
      namespace: RANCHER_NAMESPACE,
      rolloutDelayMs: scenario.timings.rolloutNodeDelaySeconds * 1000,
      log,
    });
    planner.start();
    cleanups.push(() => planner.stop());
  } else if (boot.rancherRke && managementKube) {
    const rancher = new RancherRke1Controller({
      management: managementKube,
      rkeUp: rke.rkeUp,
      clock,
      scenario,
      log,
    });
    rancher.start();
    cleanups.push(() => rancher.stop());
  }
  if (scenario.distribution !== 'rke2' && scenario.ccm && layout.instances.length > 0) {
    // Outside RKE2 a pre-installed chart is a HelmChart in the cluster (the helm-controller renders it).
    applier.apply('scenario-ccm', [
      {
        apiVersion: 'helm.cattle.io/v1',
        kind: 'HelmChart',
        metadata: { name: 'aws-cloud-controller-manager', namespace: 'kube-system' },
        spec: {
          chart: 'aws-cloud-controller-manager',
          targetNamespace: 'kube-system',
          valuesContent: JSON.stringify(scenario.ccm.values),
        },
      },
    ]);
  }
  if (scenario.distribution === 'kubeadm') {
    const driver = new KubeadmDriver(kubeadmMachines, {
      clock,
      events,
      version,
      pollMs: scenario.timings.staticPodPollSeconds * 1000,
      log,
    });
    driver.start();
    cleanups.push(() => driver.stop());
  }
}

/** The running twin as its users see it: its parts, files, reports and how to close it (once). */
function twinHandle(parts: {
  readonly boot: Boot;
  readonly servers: ApiServers;
  readonly aws: AwsEmulator;
  readonly machinery: Machinery;
  readonly rke: RkeMachinery;
  readonly identities: TwinIdentities;
  readonly files: ReturnType<typeof writeTwinFiles>;
  readonly closeAll: () => Promise<void>;
}): Twin {
  const { scenario, dir, clock, layout, version } = parts.boot;
  const { downstream, management, kube, managementKube } = parts.servers;
  const { fleet, ledger, pods } = parts.machinery;
  const { rkeUp, rkeConfigPath } = parts.rke;
  const startedAt = clock.now();
  let closed: Promise<void> | undefined;
  return {
    scenario,
    dir,
    clock,
    layout,
    version,
    downstream,
    management,
    aws: parts.aws,
    identities: parts.identities,
    kube,
    nodes: fleet,
    ledger,
    faults: parts.boot.faults,
    files: {
      kubeconfig: parts.files.kubeconfig,
      awsEnv: parts.files.awsEnv,
      rkeConfig: rkeConfigPath,
      nodes: scenario.distribution === 'kubeadm' ? join(dir, 'nodes') : undefined,
    },
    contexts: parts.files.contexts,
    applyRkeConfig: async (text, file = rkeConfigPath ?? 'cluster.yml') => {
      if (scenario.distribution !== 'rke') {
        return {
          ok: false,
          reason: `the ${scenario.name} twin is ${scenario.distribution}, not RKE`,
          log: [],
        };
      }
      return rkeUp.up(text, file);
    },
    ledgerReport: () =>
      ledgerReport(ledgerAnalysis(ledger, startedAt, clock.now()), journeyRestarts(fleet.all())),
    ledgerAnalysis: () => ledgerAnalysis(ledger, startedAt, clock.now()),
    status: () =>
      twinStatus({
        scenario: scenario.name,
        distribution: scenario.distribution,
        kubernetesVersion: version.configured,
        apiServerVersion: downstream.version.gitVersion,
        kube,
        fleet,
        pods,
        managementCluster: managementKube?.get(
          R.provisioningClusters,
          RANCHER_NAMESPACE,
          scenario.clusterName,
        ),
      }),
    close: () => (closed ??= parts.closeAll()),
  };
}
