/**
 * What every fleet command starts with: Rancher's local cluster (--rancher-context, or the pod's service
 * account with --rancher-in-cluster), the provisioning Clusters selected there (--selector, --clusters), and
 * for each one the way to reach it (Rancher's kubeconfig Secret, read into memory) and its AWS environment.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { RealClock, systemRandom, type Clock, type Random } from '../../clock/index.js';
import { InputError, InternalError, UprootError } from '../../errors/index.js';
import { KubeClient } from '../../adapters/kube/kube-client.js';
import { KubeObjects } from '../../adapters/kube/kube-objects.js';
import { rancherKubeConfig } from '../../adapters/kube/rancher-access.js';
import { readEnvFile } from '../../adapters/files/env-file.js';
import {
  clusterKey,
  fleetClusterOf,
  parseClusterList,
  selectClusters,
  startsNow,
  type FleetCluster,
  type Pacing,
} from '../../core/fleet/index.js';
import type { RancherClusterRef } from '../../core/distros/rke2/cluster-ref.js';
import type { KubeObject, ObjectStore } from '../../engine/ports.js';
import { managementKubeConfig } from '../session/cluster-access.js';
import type { RunHost } from '../session/run-settings.js';

/** Which Rancher, and which of its clusters. */
export interface FleetTargets {
  readonly kubeconfig?: string;
  /** The kubeconfig context of Rancher's local cluster. */
  readonly rancherContext?: string;
  /** In a pod of Rancher's local cluster: its service account. */
  readonly rancherInCluster?: boolean;
  /** A label selector on the provisioning Clusters (`env=prod,tier!=edge`). */
  readonly selector?: string;
  /** Only these: `a,b,fleet-default/c` (namespace fleet-default when omitted). */
  readonly clusters?: string;
  /**
   * A directory of `<cluster>.env` files (`export NAME=value` lines) giving a cluster its own AWS environment
   * (a profile, keys, an endpoint); a cluster without one uses the environment uproot runs in.
   */
  readonly awsEnvDir?: string;
}

/** Rancher's local cluster, as the fleet reads and writes it. */
export interface RancherAccess {
  readonly objects: ObjectStore;
  readonly config: KubeConfig;
}

export interface FleetDeps {
  readonly clock?: Clock;
  readonly random?: Random;
  /** Rancher's local cluster (default: from the targets). */
  readonly rancher?: RancherAccess;
  /** One line per thing started or finished, for a person watching. */
  readonly onProgress?: (line: string) => void;
}

export interface FleetMember {
  readonly key: string;
  readonly cluster: FleetCluster;
  readonly object: KubeObject;
}

export interface FleetSession {
  readonly clock: Clock;
  readonly random: Random;
  readonly rancher: RancherAccess;
  readonly members: readonly FleetMember[];
  /** Named with --clusters but not there (or not matching --selector). */
  readonly missing: readonly RancherClusterRef[];
  readonly progress: (line: string) => void;
  /** The downstream cluster's kubeconfig, from Rancher's Secret (never written anywhere). */
  downstreamConfig(member: FleetMember): Promise<KubeConfig>;
  /** The environment a cluster's AWS reads run with. */
  awsEnv(member: FleetMember): Readonly<Record<string, string | undefined>>;
}

export function validateFleetTargets(targets: FleetTargets, deps: FleetDeps): void {
  if (deps.rancher) return;
  if (!targets.rancherContext === !targets.rancherInCluster) {
    throw new InputError(
      'UP-FLEET-RANCHER',
      targets.rancherContext
        ? '--rancher-context and --rancher-in-cluster are alternatives'
        : 'a fleet command needs Rancher’s local cluster',
      {
        location: { field: '--rancher-context' },
        hint: 'pass --rancher-context with the kubeconfig context of Rancher’s local cluster (or --rancher-in-cluster in a pod there)',
      },
    );
  }
}

export async function openFleet(
  targets: FleetTargets,
  host: RunHost,
  deps: FleetDeps = {},
): Promise<FleetSession> {
  validateFleetTargets(targets, deps);
  const named = targets.clusters !== undefined ? parseClusterList(targets.clusters) : undefined;
  const clock = deps.clock ?? new RealClock();
  const random = deps.random ?? systemRandom;
  const rancher = deps.rancher ?? connectRancher(targets, host, clock, random);
  const objects = await listClusters(rancher.objects, targets.selector);
  const members = new Map<string, FleetMember>();
  for (const object of objects) {
    const cluster = fleetClusterOf(object);
    if (cluster) members.set(clusterKey(cluster), { key: clusterKey(cluster), cluster, object });
  }
  const { selected, missing } = selectClusters(
    [...members.values()].map((m) => m.cluster),
    named,
  );
  const awsDir = targets.awsEnvDir ? resolve(host.cwd, targets.awsEnvDir) : undefined;
  return {
    clock,
    random,
    rancher,
    members: selected.map((c) => members.get(clusterKey(c))!),
    missing,
    progress: deps.onProgress ?? (() => undefined),
    downstreamConfig: (member) => rancherKubeConfig(rancher.objects, member.cluster, member.object),
    awsEnv: (member) => {
      const file = awsDir ? join(awsDir, `${member.cluster.name}.env`) : undefined;
      return file && existsSync(file) ? { ...host.env, ...readEnvFile(file) } : host.env;
    },
  };
}

function connectRancher(targets: FleetTargets, host: RunHost, clock: Clock, random: Random): RancherAccess {
  const config = managementKubeConfig(targets, host.env)!;
  return { config, objects: new KubeObjects(KubeClient.fromKubeConfig(config, { clock, random })) };
}

async function listClusters(objects: ObjectStore, selector: string | undefined): Promise<KubeObject[]> {
  try {
    return await objects.list(
      'provisioning.cattle.io/v1',
      'Cluster',
      selector ? { labelSelector: selector } : {},
    );
  } catch (error) {
    if (selector && UprootError.is(error) && (error as { status?: number }).status === 400) {
      throw new InputError(
        'UP-FLEET-SELECTOR',
        `--selector "${selector}" is not a label selector: ${error.message}`,
        {
          location: { field: '--selector', value: selector },
          hint: 'write it as kubectl does: env=prod,tier!=edge or "env in (prod,staging)"',
          cause: error,
        },
      );
    }
    throw error;
  }
}

/** The KubeObjects of a kubeconfig on the session's clock. */
export function objectsOf(session: Pick<FleetSession, 'clock' | 'random'>, kc: KubeConfig): KubeObjects {
  return new KubeObjects(KubeClient.fromKubeConfig(kc, { clock: session.clock, random: session.random }));
}

/**
 * Runs `work` for each key in order, paced as core/fleet says (`startsNow`): at most `parallel` at a time, and
 * nothing new once `failed` results reach `maxFailures` (what runs finishes). `work` reports failures in its
 * result, it does not throw. Returns the results of what ran; keys left out never started.
 */
export async function paced<R>(
  keys: readonly string[],
  pacing: Pacing,
  options: { readonly failed?: (result: R) => boolean; readonly signal?: AbortSignal },
  work: (key: string) => Promise<R>,
): Promise<Map<string, R>> {
  const results = new Map<string, R>();
  const running = new Set<Promise<void>>();
  let waiting = [...keys];
  for (;;) {
    const failed = [...results.values()].filter((r) => options.failed?.(r) ?? false).length;
    const start: string[] = options.signal?.aborted
      ? []
      : startsNow({ waiting, running: running.size, failed }, pacing).start;
    waiting = waiting.filter((k) => !start.includes(k));
    for (const key of start) {
      const p: Promise<void> = work(key).then((r) => {
        results.set(key, r);
        running.delete(p);
      });
      running.add(p);
    }
    if (running.size === 0) return results;
    await Promise.race(running);
  }
}

/** An error as a row: its code and message (never a stack, never a secret: messages carry none). */
export function errorRow(error: unknown): { readonly code: string; readonly message: string } {
  if (UprootError.is(error)) return { code: error.code, message: error.message };
  const internal = new InternalError(error instanceof Error ? error.message : String(error));
  return { code: internal.code, message: internal.message };
}

/** A cluster named with --clusters that the local cluster does not have (or --selector leaves out), as a row. */
export function missingCluster(ref: RancherClusterRef): { readonly code: string; readonly message: string } {
  return errorRow(
    new InputError(
      'UP-CLUSTER-NOT-FOUND',
      `there is no provisioning Cluster ${clusterKey(ref)} (or --selector leaves it out)`,
      {
        location: { field: '--clusters', value: clusterKey(ref) },
        hint: 'list them with: kubectl --context <rancher-context> get clusters.provisioning.cattle.io -A',
      },
    ),
  );
}
