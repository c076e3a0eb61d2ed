import { type Clock, type Random, UprootError } from 'uproot';
import {
  parseKubernetesVersion,
  type KubernetesVersion,
  controllerName,
  decodeLeaderMigrationConfiguration,
  type LeaderMigrationConfiguration,
  type LogicalController,
  type ManagerComponent,
  configuredClusterId,
  parseAwsCloudConfig,
  logicalControllerName,
  NOT_CONFIGURED,
  type LedgerEntry,
} from 'uproot/core';
import {
  KubeLeaseLock,
  managerOptionsFromFlags,
  parseManagerFlags,
  runControllerManager,
  type ControllerManager,
  type ManagerEvent,
  type ManagerExit,
  type ManagerFlags,
} from 'uproot/election';
import { AwsApi, type AwsEndpoint } from '../cloud-controllers/aws-api.js';
import type { Ec2MetadataClient } from '../cloud-controllers/ec2-metadata.js';
import { AwsCloud } from '../cloud-controllers/aws-cloud.js';
import { InstanceTopology } from '../cloud-controllers/instance-topology.js';
import type { CloudControllerSettings, ControllerContext } from '../cloud-controllers/controller-context.js';
import { EventRecorder } from '../cloud-controllers/event-recorder.js';
import { KubeApi, kubeConfigFor, type KubeEndpoint } from '../cloud-controllers/kube-api.js';
import { createSharedInformers } from '../cloud-controllers/shared-informers.js';
import {
  CLOUD_CONTROLLER_RUNS,
  CONTROLLER_SERVICE_ACCOUNTS,
  controllerDescriptors,
} from './controller-descriptors.js';
import { serviceAccountTokenSource } from './controller-tokens.js';
import { managerIdentity } from './manager-identity.js';
import { cloudControllerSettings, cloudProviderError, runsCloudControllers } from './manager-settings.js';
import { initAwsCloud } from './aws-cloud-init.js';
import { imdsCredentials } from './imds-credentials.js';

export interface SimulatedManagerOptions {
  readonly component: ManagerComponent;
  /** The node it runs on: the hostname part of its identity, and how it finds its own instance. */
  readonly nodeName: string;
  /** The real command-line flags (`--cloud-provider=aws`, `--enable-leader-migration`, ...). */
  readonly args: readonly string[];
  readonly kubernetesVersion: KubernetesVersion | string;
  /**
   * Its own identity: KCM as user `system:kube-controller-manager`, CCM as the service account
   * `kube-system:cloud-controller-manager`. With --use-service-account-credentials, controllers act as
   * `kube-system:<controller>`: with `requestTokens` each gets its token from TokenRequest as upstream's
   * client builder does (controller-tokens.ts); else `tokenFor`'s token, or the manager's own.
   */
  readonly kube: KubeEndpoint & {
    readonly tokenFor?: (serviceAccount: string) => string | undefined;
    readonly requestTokens?: boolean;
  };
  /** The node's instance-role credentials (from IMDS), so the node role's IAM gaps bite as on AWS. */
  readonly aws: AwsEndpoint;
  /**
   * The node's instance metadata service as this process reaches it (a new aws-sdk-go metadata client per
   * call, each with its own token state). When given, the manager's role credentials come from it (the SDK's
   * EC2RoleProvider) instead of `aws.credentials`, and the CCM reads its region and instance id from it at
   * start-up, failing as the real one does when it cannot (src/sandbox/managers/aws-cloud-init.ts).
   */
  readonly instanceMetadata?: () => Ec2MetadataClient;
  readonly clock: Clock;
  readonly random: Random;
  /** Where controllers record started/stopped and every action. */
  readonly ledger: { record(entry: LedgerEntry): void };
  /** Reads --leader-migration-config (the kubeadm twin maps `/etc/leadermigration.conf` to the node's file). */
  readonly readFile?: (path: string) => Promise<string> | string;
  /** cloud.config KubernetesClusterID; otherwise read from the manager's instance tags. */
  readonly clusterId?: string;
  readonly onLog?: (line: string) => void;
  readonly onEvent?: (event: ManagerEvent) => void;
}

/** A running (or exited) simulated controller manager, as a kubelet sees a static pod's process. */
export interface SimulatedManager {
  readonly component: ManagerComponent;
  readonly nodeName: string;
  /** `hostname_UUID`, new for every start. */
  readonly identity: string;
  /** Resolves with the exit code and reason: 1 for bad flags or a lost lease, 0 after stop(). */
  readonly exited: Promise<ManagerExit>;
  readonly running: boolean;
  /** Kills the process (exit 0, "terminated"); leases are left to expire, as upstream never releases. */
  stop(): Promise<ManagerExit>;
  /** The parsed flags, once start-up got that far. */
  readonly flags: ManagerFlags | undefined;
  /** The last log lines (start-up errors, election errors such as a 403 on the migration lease). */
  readonly logs: readonly string[];
  leading(): { main: boolean; migration: boolean };
  runningControllers(): string[];
}

const LOG_LINES = 200;

/** One process's life as its parts share it: who it is, its log, what to undo when it exits. */
interface ManagerProcess {
  readonly options: SimulatedManagerOptions;
  readonly identity: string;
  readonly log: (line: string) => void;
  readonly cleanups: (() => void)[];
  /** The parsed flags, once start-up got that far. */
  flags: ManagerFlags | undefined;
  stopRequested: boolean;
  /** Set when the process dies of its own accord after starting (a KCM whose provider fails once it leads). */
  crash: ManagerExit | undefined;
}

/** What start-up read and checked before the runtime is built. */
interface StartUpConfig {
  readonly flags: ManagerFlags;
  readonly version: KubernetesVersion;
  readonly settings: CloudControllerSettings;
  /** A provider the KCM accepts at start and fails on once it leads (the doomed runtime). */
  readonly providerError: string | undefined;
  readonly migrationConfig: LeaderMigrationConfiguration | undefined;
  readonly configClusterId: string | undefined;
}

/**
 * Starts a simulated kube-controller-manager or cloud-controller-manager: parses its flags with upstream's
 * errors (a bad one makes it exit 1 at once), reads and validates the leader-migration configuration, and
 * runs the election/leader-migration runtime with controller descriptors whose `run` does real work over
 * HTTP against the API server (client-node) and AWS (SDK v3). Losing a lease ends the process with exit 1;
 * restarting it is the caller's job, as a kubelet restarts a static pod.
 */
export function startSimulatedManager(options: SimulatedManagerOptions): SimulatedManager {
  const logs: string[] = [];
  const proc: ManagerProcess = {
    options,
    identity: managerIdentity(options.nodeName, options.random),
    log: (line) => {
      logs.push(line);
      if (logs.length > LOG_LINES) logs.shift();
      options.onLog?.(line);
    },
    cleanups: [],
    flags: undefined,
    stopRequested: false,
    crash: undefined,
  };
  let runtime: ControllerManager | undefined;
  let exit: ManagerExit | undefined;

  // A kill during start-up (waiting on instance metadata, say) ends the process at once, as SIGTERM would.
  let killDuringStartUp: (exit: ManagerExit) => void = () => undefined;
  const killed = new Promise<ManagerExit>((resolve) => (killDuringStartUp = resolve));
  const exited = (async (): Promise<ManagerExit> => {
    const started = await Promise.race([startUp(proc), killed]);
    if ('code' in started) return started;
    runtime = started;
    if (proc.stopRequested) void runtime.stop();
    const done = await runtime.done;
    return proc.crash ?? done;
  })()
    .catch((error: unknown): ManagerExit => ({ code: 1, reason: messageOf(error) }))
    .then((result) => {
      exit = result;
      for (const c of proc.cleanups.splice(0)) c();
      proc.log(`exited with code ${result.code}: ${result.reason}`);
      return result;
    });

  return {
    component: options.component,
    nodeName: options.nodeName,
    identity: proc.identity,
    exited,
    get running() {
      return exit === undefined;
    },
    stop: () => {
      proc.stopRequested = true;
      if (runtime) void runtime.stop();
      else killDuringStartUp({ code: 0, reason: 'terminated' });
      return exited;
    },
    get flags() {
      return proc.flags;
    },
    logs,
    leading: () => runtime?.leading() ?? { main: false, migration: false },
    runningControllers: () => runtime?.running() ?? [],
  };
}

/** Start-up: configuration read and checked, the AWS endpoint resolved, then the runtime (or an exit). */
async function startUp(proc: ManagerProcess): Promise<ControllerManager | ManagerExit> {
  const fail = (reason: string): ManagerExit => {
    proc.log(reason);
    return { code: 1, reason };
  };
  const config = await readStartUpConfig(proc);
  if ('error' in config) return fail(config.error);
  const aws = await managerAwsEndpoint(proc, config.flags);
  if ('code' in aws) return aws;
  if (proc.stopRequested) return { code: 0, reason: 'terminated' };
  try {
    if (config.providerError) return startDoomedRuntime(proc, config, config.providerError);
    return startRuntime(proc, config, aws);
  } catch (error) {
    // An invalid configuration or timings: the process does not start.
    return fail(messageOf(error));
  }
}

/** The version, flags, cloud-controller settings, leader-migration configuration and cloud config. */
async function readStartUpConfig(proc: ManagerProcess): Promise<StartUpConfig | { error: string }> {
  const { options, log } = proc;
  let version: KubernetesVersion;
  try {
    version =
      typeof options.kubernetesVersion === 'string'
        ? parseKubernetesVersion(options.kubernetesVersion, 'kubernetesVersion')
        : options.kubernetesVersion;
  } catch (error) {
    return { error: messageOf(error) };
  }
  const parsed = parseManagerFlags(options.args, {
    component: options.component,
    kubernetesVersion: version,
  });
  for (const w of parsed.warnings) log(`warning: ${w}`);
  if (!parsed.ok) return { error: parsed.errors.join('; ') };
  const flags = parsed.flags;
  proc.flags = flags;
  const providerError = cloudProviderError(flags);
  if (providerError && !providerError.afterLeading) return { error: providerError.message };
  const settings = cloudControllerSettings(flags);
  if ('error' in settings) return settings;
  const migration = await readMigrationConfig(options, flags, version);
  if ('error' in migration) return migration;
  // The cloud config is read before the cloud is built (cloud-provider-aws readAWSCloudConfig, then newAWSCloud).
  const cloudConfig = await readCloudConfig(flags, options, options.component);
  if ('error' in cloudConfig) return cloudConfig;
  return {
    flags,
    version,
    settings: settings.settings,
    providerError: providerError?.message,
    migrationConfig: migration.config,
    configClusterId: cloudConfig.clusterId,
  };
}

/** `--leader-migration-config`, read and decoded strictly (none when migration is off or the flag empty). */
async function readMigrationConfig(
  options: SimulatedManagerOptions,
  flags: ManagerFlags,
  version: KubernetesVersion,
): Promise<{ config: LeaderMigrationConfiguration | undefined } | { error: string }> {
  if (!flags.enableLeaderMigration || flags.leaderMigrationConfig === '') return { config: undefined };
  const path = flags.leaderMigrationConfig;
  let text: string;
  try {
    text = await readManagerFile(options, path);
  } catch (error) {
    return {
      error: `unable to read leader migration configuration from ${JSON.stringify(path)}: ${messageOf(error)}`,
    };
  }
  try {
    const decoded = decodeLeaderMigrationConfiguration(text, { file: path, kubernetesVersion: version });
    const strict = decoded.issues.filter((i) => i.severity === 'error');
    if (strict.length > 0) {
      return {
        error: `failed to parse leader migration configuration: [${strict.map((i) => i.message).join(' ')}]`,
      };
    }
    return { config: decoded.config };
  } catch (error) {
    return { error: `failed to parse leader migration configuration: ${messageOf(error)}` };
  }
}

/**
 * How the process reaches AWS: with instance metadata, the role's credentials from IMDS and (CCM) the
 * region and instance id read at start-up, exiting 255 as klog.Fatalf does when it cannot.
 */
async function managerAwsEndpoint(
  proc: ManagerProcess,
  flags: ManagerFlags,
): Promise<AwsEndpoint | ManagerExit> {
  const { options, log } = proc;
  let aws = options.aws;
  if (!options.instanceMetadata || !runsCloudControllers(flags)) return aws;
  const newClient = options.instanceMetadata;
  const credentialsClient = newClient();
  aws = {
    ...aws,
    credentials: imdsCredentials(
      () => credentialsClient,
      () => options.clock.now(),
    ),
  };
  if (options.component !== 'cloud-controller-manager') return aws;
  const init = await initAwsCloud(newClient, log);
  if (!init.ok) {
    log(init.reason);
    // klog.Fatalf exits 255.
    return { code: 255, reason: init.reason };
  }
  return { ...aws, region: init.region, instanceId: init.instanceId };
}

/** The election half of the runtime's options: the flags, this identity's lease locks, clock and logger. */
function electionOptions(
  proc: ManagerProcess,
  f: ManagerFlags,
  migrationConfig: LeaderMigrationConfiguration | undefined,
  kubeConfig: ReturnType<typeof kubeConfigFor>,
) {
  const { identity, options } = proc;
  const { clock } = options;
  return {
    ...managerOptionsFromFlags(f, migrationConfig),
    identity,
    leaseLockFactory: (name: string) =>
      new KubeLeaseLock({
        kubeConfig,
        namespace: f.resourceNamespace,
        name,
        identity,
        clock,
        renewDeadlineMs: f.timings.renewDeadlineMs,
      }),
    clock,
    random: options.random,
    logger: (level: string, message: string, fields: Record<string, unknown>) =>
      proc.log(electionLogLine(level, message, fields)),
  };
}

/**
 * A KCM that cannot build its controller context: it campaigns like any other and, on winning the main
 * lease, logs the error and exits 1 without releasing the lease (klog.FlushAndExit), so the next leader is
 * elected only when the lease expires, and crashes the same way.
 */
function startDoomedRuntime(proc: ManagerProcess, config: StartUpConfig, error: string): ControllerManager {
  const { options } = proc;
  const manager: ControllerManager = runControllerManager({
    ...electionOptions(proc, config.flags, config.migrationConfig, kubeConfigFor(options.kube)),
    controllers: [],
    onEvent: (event) => {
      options.onEvent?.(event);
      if (event.type !== 'started-leading' || event.lease !== 'main' || proc.crash) return;
      proc.log(`"Error building controller context" err="${error.replace(/"/g, '\\"')}"`);
      proc.crash = { code: 1, reason: error };
      void manager.stop();
    },
  });
  return manager;
}

/** The election runtime over controller descriptors that do real work; the ledger hears what they do. */
function startRuntime(proc: ManagerProcess, config: StartUpConfig, aws: AwsEndpoint): ControllerManager {
  const { options, log } = proc;
  const { flags, version, settings } = config;
  const record = ledgerRecorder(proc);
  const kubeConfig = kubeConfigFor(options.kube);
  const contextFor = controllerContexts(proc, config, aws, kubeConfig);
  const descriptors = controllerDescriptors({
    component: options.component,
    version,
    settings,
    run: (name, logical, signal) => CLOUD_CONTROLLER_RUNS[logical](contextFor(name, logical), signal),
  });
  if (!(settings.allocateNodeCidrs && settings.configureCloudRoutes)) {
    log(
      `Will not configure cloud provider routes for allocate-node-cidrs: ${settings.allocateNodeCidrs}, configure-cloud-routes: ${settings.configureCloudRoutes}.`,
    );
  }
  // The flag-dependent controllers this process will never run, so the ledger can tell "not configured
  // anywhere" from "nobody ran it".
  const offered = new Set(descriptors.map((d) => logicalControllerName(d.name)));
  for (const logical of ['route', 'nodeipam'] as const) {
    if (!offered.has(logical)) record(controllerName(logical, version), NOT_CONFIGURED);
  }
  const manager = runControllerManager({
    ...electionOptions(proc, flags, config.migrationConfig, kubeConfig),
    controllers: descriptors,
    onEvent: (event) => {
      if (event.type === 'controller-started') record(event.controller, 'started');
      if (event.type === 'controller-stopped') {
        record(event.controller, 'stopped');
        if (event.error) log(`${event.controller} stopped with an error: ${event.error}`);
      }
      options.onEvent?.(event);
    },
    onExit: (code, reason) => log(code === 0 ? reason : `${reason}; exiting`),
  });
  for (const name of manager.plan.skipped) log(`Skipping a cloud provider controller controller=${name}`);
  for (const name of manager.plan.disabled) log(`Warning: controller is disabled controller=${name}`);
  return manager;
}

function ledgerRecorder(proc: ManagerProcess): (controller: string, action: string) => void {
  const { options, identity } = proc;
  return (controller, action) =>
    options.ledger.record({
      controller,
      component: options.component,
      identity,
      time: options.clock.now(),
      action,
    });
}

/**
 * What each controller works with: the API (as its own service account with
 * --use-service-account-credentials), the cloud, shared informers, its event recorder and the ledger.
 */
function controllerContexts(
  proc: ManagerProcess,
  config: StartUpConfig,
  aws: AwsEndpoint,
  kubeConfig: ReturnType<typeof kubeConfigFor>,
): (name: string, logical: LogicalController) => ControllerContext {
  const { options, log, identity, cleanups } = proc;
  const { clock, component } = options;
  const record = ledgerRecorder(proc);
  const kube = new KubeApi(options.kube, clock);
  const awsApi = new AwsApi(aws, clock);
  cleanups.push(() => awsApi.destroy());
  const clusterId = config.configClusterId ?? options.clusterId;
  const cloud = new AwsCloud(awsApi, {
    selfNodeName: options.nodeName,
    ...(aws.instanceId ? { selfInstanceId: aws.instanceId } : {}),
    ...(clusterId ? { clusterId } : {}),
  });
  const informers = createSharedInformers({ kube, kubeConfig, clock, onError: log });
  const topology =
    component === 'cloud-controller-manager'
      ? new InstanceTopology(awsApi, clock, config.version, (line) => log(`cloud-node: ${line}`))
      : undefined;
  cleanups.push(() => informers.stop());
  const kubeFor = controllerKubeApis(options, config.flags, kube);
  return (name, logical) => {
    const controllerKube = kubeFor(logical);
    return {
      controller: name,
      component,
      identity,
      clock,
      kube: controllerKube,
      cloud,
      informers,
      settings: config.settings,
      ...(topology ? { topology } : {}),
      events: new EventRecorder(
        controllerKube,
        clock,
        EVENT_SOURCES[logical],
        options.nodeName,
        (e) =>
          record(name, `kube:event ${e.type} ${e.reason} ${e.target.kind.toLowerCase()}/${e.target.name}`),
        log,
      ),
      record: (action) => record(name, action),
      log: (line) => log(`${name}: ${line}`),
    };
  };
}

/**
 * The API client a controller acts through: the manager's own, or with --use-service-account-credentials
 * its service account's (a TokenRequest token per account with `requestTokens`, else `tokenFor`'s).
 */
function controllerKubeApis(
  options: SimulatedManagerOptions,
  flags: ManagerFlags,
  kube: KubeApi,
): (logical: LogicalController) => KubeApi {
  const { clock } = options;
  const tokenSources = new Map<string, () => Promise<string>>();
  return (logical) => {
    if (!flags.useServiceAccountCredentials) return kube;
    const account = CONTROLLER_SERVICE_ACCOUNTS[logical];
    if (options.kube.requestTokens) {
      let source = tokenSources.get(account);
      if (!source) {
        source = serviceAccountTokenSource(kube, 'kube-system', account, clock);
        tokenSources.set(account, source);
      }
      return new KubeApi({ ...options.kube, tokenSource: source }, clock);
    }
    const token = options.kube.tokenFor?.(account);
    return token ? new KubeApi({ ...options.kube, token }, clock) : kube;
  };
}

/** The event source each controller's recorder reports (as upstream names them). */
const EVENT_SOURCES: Readonly<Record<LogicalController, string>> = {
  'cloud-node': 'cloud-node-controller',
  'cloud-node-lifecycle': 'cloud-node-lifecycle-controller',
  service: 'service-controller',
  route: 'route_controller',
  nodeipam: 'cidrAllocator',
};

/**
 * `--cloud-config`: the AWS provider reads the file at start (k8s.io/cloud-provider plugins.go
 * InitCloudProvider: "couldn't open cloud provider configuration"; pkg/providers/v1/aws.go readAWSCloudConfig
 * with gcfg.FatalOnly, so unknown keys are dropped) and takes the cluster id from
 * `[Global] KubernetesClusterTag` (legacy) / `KubernetesClusterID` instead of its instance's tags
 * (newAWSCloud2 → awsTagging.init; the two must agree: "clusterID tags did not match").
 */
async function readCloudConfig(
  flags: ManagerFlags,
  options: SimulatedManagerOptions,
  component: ManagerComponent,
): Promise<{ clusterId: string | undefined } | { error: string }> {
  const path = flags.other['cloud-config'];
  // The KCM reads it only for the in-tree provider; with --cloud-provider=external it has no cloud.
  if (
    path === undefined ||
    path === '' ||
    (component === 'kube-controller-manager' && flags.cloudProvider !== 'aws')
  )
    return { clusterId: undefined };
  let text: string;
  try {
    text = await readManagerFile(options, path);
  } catch (error) {
    return {
      error: `could not init cloud provider "aws": couldn't open cloud provider configuration ${path}: ${messageOf(error)}`,
    };
  }
  const config = parseAwsCloudConfig(text);
  const value = (key: string): string =>
    config.global.filter(([k]) => k.toLowerCase() === key.toLowerCase()).at(-1)?.[1] ?? '';
  const legacy = value('KubernetesClusterTag');
  const current = value('KubernetesClusterID');
  if (legacy !== '' && current !== '' && legacy !== current)
    return {
      error: `could not init cloud provider "aws": clusterID tags did not match: ${JSON.stringify(current)} vs ${JSON.stringify(legacy)}`,
    };
  return { clusterId: configuredClusterId(config) };
}

/**
 * A file the manager reads at start-up, as tracked I/O: in virtual time the clock would otherwise run on
 * while the read is in flight, and a busy machine would lengthen the restart (and the lease gap after it).
 */
function readManagerFile(options: SimulatedManagerOptions, path: string): Promise<string> {
  return options.clock.track(Promise.resolve().then(() => (options.readFile ?? defaultReadFile)(path)));
}

async function defaultReadFile(path: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(path, 'utf8');
}

function messageOf(error: unknown): string {
  if (UprootError.is(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** As client-go logs it: `error retrieving resource lock kube-system/<name>: <error>`. */
function electionLogLine(level: string, message: string, fields: Record<string, unknown>): string {
  const lease = typeof fields.lease === 'string' ? fields.lease : '';
  const error = fields.error === undefined ? '' : `: ${String(fields.error)}`;
  return `${level}: ${message}${lease ? ` ${lease}` : ''}${error}`;
}
