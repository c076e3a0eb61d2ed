/**
 * The preflight library entry: read (Kubernetes, the distribution's definition, AWS) → evaluate IAM →
 * check (pure) → report. Read-only throughout: the only non-GET requests are SubjectAccessReviews.
 */
import { isAbsolute, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { RealClock, type Clock } from '../clock/index.js';
import { InputError } from '../errors/index.js';
import { parseKubernetesVersion } from '../core/model/kubernetes-version.js';
import {
  PREFLIGHT_SCHEMA_VERSION,
  buildContext,
  isCcmLoadBalancer,
  outcomeOf,
  runChecksIn,
  summarize,
  withIamEvaluation,
  type PreflightReport,
} from '../core/checks/index.js';
import type { AwsFacts, NodeFacts, PreflightSnapshot } from '../core/model/snapshot.js';
import type { Readable } from '../core/model/readable.js';
import type { ClusterDefinition } from '../core/model/cluster-definition.js';
import { describeTarget } from '../adapters/kube/index.js';
import { readClusterSnapshot } from '../adapters/kube/cluster-snapshot.js';
import { readClusterDefinitionFile, readRancherCluster } from '../adapters/cluster-source/index.js';
import { RequestCounter } from '../adapters/kube/request-counter.js';
import { createAwsClients, readAwsSnapshot, resolveRegion, type AwsClients } from '../adapters/aws/index.js';
import { validateTargets, type TargetFlags } from './targets.js';
import { targetVersionError } from '../core/checks/kubernetes-version.js';
import { parseClusterRef } from '../core/distros/rke2/cluster-ref.js';
import { resolveKubeConfigs } from './session/cluster-access.js';

/** The target (TargetFlags: kubeconfig and context, Rancher and --cluster, or --cluster-file) and how to audit it. */
export interface PreflightOptions extends TargetFlags {
  /**
   * Kubeconfigs already loaded, instead of the flags above (a fleet run reaches each cluster through Rancher);
   * with `management` and `cluster`, the provisioning Cluster is read from there.
   */
  readonly kubeConfigs?: { readonly downstream: KubeConfig; readonly management?: KubeConfig };
  readonly region?: string;
  readonly targetVersion?: string;
  /** Accept a target release newer than uproot's release table (a brand-new release). */
  readonly allowUnknownRelease?: boolean;
  /** The cluster id for tag fixes when the instances carry none. */
  readonly clusterId?: string;
  /** Where AWS keys, profile, region and endpoints come from (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Relative --cluster-file paths resolve against it (default process.cwd()). */
  readonly cwd?: string;
  readonly clock?: Clock;
  readonly onProgress?: (step: string) => void;
  /** Kubernetes list page size (default 500). */
  readonly pageSize?: number;
  /** AWS retries: attempts including the first (default 3) and the delay before each retry (default the SDK's). */
  readonly aws?: { readonly maxAttempts?: number; readonly retryDelayMs?: (retry: number) => number };
}

export interface PreflightRun {
  readonly report: PreflightReport;
  readonly snapshot: PreflightSnapshot;
}

/** What preflight read, before it judges: the snapshot, where it came from, and how many requests it took. */
export interface PreflightReads {
  readonly snapshot: PreflightSnapshot;
  readonly downstream: KubeConfig;
  readonly region?: { readonly region: string };
  readonly nodes: readonly NodeFacts[];
  readonly kubeRequests: RequestCounter;
  readonly awsRequests: RequestCounter;
}

/**
 * Reads what preflight judges (Kubernetes, the distribution's definition, AWS) and evaluates IAM; `uproot
 * snapshot` shares it. `alsoAws` runs more AWS reads on the same clients before they close.
 */
export async function readPreflightSnapshot(
  options: PreflightOptions,
  alsoAws?: (clients: AwsClients, aws: Readable<AwsFacts>) => Promise<void>,
): Promise<PreflightReads> {
  validateFlags(options);
  const clock = options.clock ?? new RealClock();
  const env = options.env ?? process.env;
  const progress = options.onProgress ?? (() => undefined);
  const kubeCounter = new RequestCounter();
  const awsCounter = new RequestCounter();

  const configs = options.kubeConfigs ?? (await resolveKubeConfigs(options, env, clock));
  const kc = configs.downstream;
  const definition = await readDefinition(options, configs.management, kubeCounter, progress);
  const kube = await readClusterSnapshot(kc, {
    counter: kubeCounter,
    clock,
    pageSize: options.pageSize,
    onProgress: progress,
    ...(definition ? { clusterDefinition: definition } : {}),
  });
  const nodes = kube.nodes.state === 'ok' ? kube.nodes.value : [];
  const region = resolveRegion(options.region, env, nodes);
  let aws: Readable<AwsFacts>;
  if (!region) {
    aws = {
      state: 'unavailable',
      reason: 'no AWS region: pass --region or set AWS_REGION (the nodes carry no region label)',
    };
  } else {
    const clients = createAwsClients({
      region: region.region,
      env,
      counter: awsCounter,
      ...(options.aws?.maxAttempts ? { maxAttempts: options.aws.maxAttempts } : {}),
      ...(options.aws?.retryDelayMs ? { retryDelayMs: options.aws.retryDelayMs } : {}),
    });
    try {
      const lbServices =
        kube.loadBalancerServices.state === 'ok' && kube.loadBalancerServices.value.some(isCcmLoadBalancer);
      aws = await readAwsSnapshot(clients, nodes, { loadBalancers: lbServices, onProgress: progress });
      await alsoAws?.(clients, aws);
    } finally {
      clients.destroy();
    }
  }
  progress('evaluating IAM policies');
  const snapshot = await withIamEvaluation({ kube, aws });
  return {
    snapshot,
    downstream: kc,
    ...(region ? { region: { region: region.region } } : {}),
    nodes,
    kubeRequests: kubeCounter,
    awsRequests: awsCounter,
  };
}

/** Runs preflight and returns the report (and the snapshot it judged). Throws only when it cannot run at all. */
export async function preflight(options: PreflightOptions = {}): Promise<PreflightRun> {
  const clock = options.clock ?? new RealClock();
  const started = clock.now();
  const progress = options.onProgress ?? (() => undefined);
  const {
    snapshot,
    downstream: kc,
    region,
    nodes,
    kubeRequests,
    awsRequests,
  } = await readPreflightSnapshot({
    ...options,
    clock,
  });
  progress('checking');
  const checkOptions = {
    ...(options.targetVersion ? { targetVersion: options.targetVersion } : {}),
    ...(options.allowUnknownRelease ? { allowUnknownRelease: true } : {}),
    ...(options.clusterId ? { clusterId: options.clusterId } : {}),
  };
  const ctx = buildContext(snapshot, checkOptions);
  // A --target-version plan and migrate refuse is the user's input, refused alike (exit 2), not a failed check.
  const refused = targetVersionError(ctx);
  if (refused) throw refused;
  const checks = runChecksIn(ctx);
  const profile = ctx.profile;
  const target = describeTarget(kc);
  const report: PreflightReport = {
    schemaVersion: PREFLIGHT_SCHEMA_VERSION,
    target: {
      context: target.context,
      server: target.server,
      distro: profile.distro,
      ...(profile.version ? { kubernetesVersion: profile.version.raw } : {}),
      ...(options.targetVersion ? { targetVersion: options.targetVersion } : {}),
      ...(region ? { region: region.region } : {}),
      nodes: nodes.length,
      ...(profile.definition ? { clusterDefinition: profile.definition.source } : {}),
    },
    outcome: outcomeOf(checks),
    summary: summarize(checks),
    checks,
    stats: {
      durationMs: Math.max(0, clock.now() - started),
      kubernetes: kubeRequests.snapshot(),
      aws: awsRequests.snapshot(),
    },
  };
  return { report, snapshot };
}

function validateFlags(options: PreflightOptions): void {
  if (!options.kubeConfigs) validateTargets(options);
  else if (options.cluster) parseClusterRef(options.cluster);
  if (options.targetVersion) parseKubernetesVersion(options.targetVersion, '--target-version');
  if (options.region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(options.region)) {
    throw new InputError('UP-PREFLIGHT-REGION', `"${options.region}" is not an AWS region`, {
      location: { field: '--region', value: options.region },
      hint: 'write it as us-east-1, eu-west-2, ...',
    });
  }
}

async function readDefinition(
  options: PreflightOptions,
  management: KubeConfig | undefined,
  counter: RequestCounter,
  progress: (step: string) => void,
): Promise<Readable<ClusterDefinition> | undefined> {
  if (options.clusterFile) {
    progress('cluster definition file');
    const path = isAbsolute(options.clusterFile)
      ? options.clusterFile
      : resolve(options.cwd ?? process.cwd(), options.clusterFile);
    return { state: 'ok', value: readClusterDefinitionFile(path) };
  }
  if (management && options.cluster) {
    progress('Rancher cluster');
    return readRancherCluster(management, options.cluster, counter);
  }
  return undefined;
}
