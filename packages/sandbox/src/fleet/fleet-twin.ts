/**
 * A fleet twin: one Rancher local cluster (a management API server with its Job controller and root-CA
 * publisher) and N downstream RKE2 twins that register their provisioning Clusters and `<name>-kubeconfig`
 * Secrets there; each twin's Rancher planner watches its own Cluster in the shared local cluster. Every
 * downstream twin keeps its own API server and AWS account (emulator) on loopback, all on one clock.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock, Random } from 'uproot';
import { seededRandom } from 'uproot/election/testing';
import { awsEnvironment, writeAwsEnv } from '../aws/index.js';
import {
  startKubeApiServer,
  writeKubeconfig,
  type KubeApiServer,
  type KubeconfigEntry,
} from '../apiserver/index.js';
import { loadScenario } from '../scenarios/index.js';
import { startTwin, type Twin } from '../twin/index.js';
import { twinIdentities } from '../twin/boot/identities.js';
import { R, TwinKube } from '../twin/kube/twin-kube.js';
import { fleetComposition, type FleetMemberSpec } from './fleet-composition.js';
import type { PodClockMode } from './jobs/clock-bridge.js';
import { JobController } from './jobs/job-controller.js';
import { PodProcesses } from './jobs/pod-processes.js';
import { publishRootCa } from './root-ca-publisher.js';
import { Cleanups } from '../twin/runtime/cleanups.js';

export interface StartFleetTwinOptions {
  /** How many downstream clusters (default 5). */
  readonly clusters?: number;
  /** Instead of the default composition. */
  readonly members?: readonly FleetMemberSpec[];
  readonly clock: Clock;
  /** How Job pods (separate processes) share the clock: virtual time over IPC, or scaled real time. */
  readonly podClock: PodClockMode;
  readonly dir: string;
  readonly seed?: number;
  /** Nodes per downstream cluster (default: the scenario's). */
  readonly nodes?: number;
  readonly log?: (line: string) => void;
  /** How Job pods start the CLI (node arguments); default this checkout's pod entry. */
  readonly podEntry?: readonly string[];
}

export interface FleetTwinMember {
  readonly spec: FleetMemberSpec;
  readonly twin: Twin;
}

export interface FleetTwin {
  readonly dir: string;
  readonly clock: Clock;
  /** Rancher's local cluster. */
  readonly local: KubeApiServer;
  readonly localKube: TwinKube;
  readonly members: readonly FleetTwinMember[];
  readonly pods: PodProcesses;
  readonly jobs: JobController;
  readonly files: {
    /** Context `rancher` (the local cluster's admin) and one context per downstream cluster. */
    readonly kubeconfig: string;
    /** <name>.env per downstream cluster: its AWS account (`uproot fleet --aws-env-dir`). */
    readonly awsEnvDir: string;
  };
  readonly context: string;
  member(name: string): FleetTwinMember | undefined;
  close(): Promise<void>;
}

export const FLEET_CONTEXT = 'rancher';

export async function startFleetTwin(options: StartFleetTwinOptions): Promise<FleetTwin> {
  const { clock, dir } = options;
  const log = options.log ?? (() => undefined);
  const random: Random = seededRandom(options.seed ?? 2026);
  const specs = options.members ?? fleetComposition(options.clusters ?? 5);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const admin = twinIdentities(seededRandom(Math.floor(random() * 2 ** 32))).rancher;
  const local = await startKubeApiServer({
    clock,
    random: seededRandom(Math.floor(random() * 2 ** 32)),
    identities: [admin],
  });
  const localKube = new TwinKube(local.store, clock);
  const cleanups = new Cleanups(log);
  cleanups.push(() => local.close());
  const closeAll = () => cleanups.closeAll();
  const members: FleetTwinMember[] = [];
  try {
    cleanups.push(publishRootCa(localKube, local.certificateAuthority ?? ''));
    seedLocalCluster(localKube);
    const pods = new PodProcesses({
      server: local,
      kube: localKube,
      clock,
      clockMode: options.podClock,
      dir,
      log,
      ...(options.podEntry ? { entry: options.podEntry } : {}),
    });
    const jobs = new JobController({ kube: localKube, clock, pods, log });
    jobs.start();
    cleanups.push(() => jobs.close());
    for (const [i, spec] of specs.entries()) {
      const { scenario } = loadScenario(spec.scenario);
      const twin = await startTwin({
        scenario: { ...scenario, clusterName: spec.name, seed: scenario.seed + 7919 * (i + 1) },
        clock,
        dir: join(dir, 'clusters', spec.name),
        rancher: { server: local, kube: localKube },
        ...(options.nodes !== undefined ? { nodes: options.nodes } : {}),
        log: (line) => log(`${spec.name}: ${line}`),
      });
      cleanups.push(() => twin.close());
      localKube.mutate(R.provisioningClusters, 'fleet-default', spec.name, (draft) => {
        draft.metadata = { ...draft.metadata, labels: { ...(draft.metadata?.labels ?? {}), ...spec.labels } };
        return draft;
      });
      members.push({ spec, twin });
    }
    const files = writeFleetFiles(dir, local, admin, members);
    let closed: Promise<void> | undefined;
    return {
      dir,
      clock,
      local,
      localKube,
      members,
      pods,
      jobs,
      files,
      context: FLEET_CONTEXT,
      member: (name) => members.find((m) => m.spec.name === name),
      close: () => (closed ??= closeAll()),
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** Rancher's own cluster as a provisioning Cluster (fleet-local/local), which no fleet command may select. */
function seedLocalCluster(kube: TwinKube): void {
  kube.ensure(R.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet-local' } });
  kube.ensure(R.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet-default' } });
  kube.ensure(R.provisioningClusters, {
    apiVersion: 'provisioning.cattle.io/v1',
    kind: 'Cluster',
    metadata: { name: 'local', namespace: 'fleet-local' },
    spec: { kubernetesVersion: 'v1.30.14+rke2r2', localClusterAuthEndpoint: {} },
  });
}

function writeFleetFiles(
  dir: string,
  local: KubeApiServer,
  admin: Parameters<KubeApiServer['kubeconfigEntry']>[0] & object,
  members: readonly FleetTwinMember[],
): FleetTwin['files'] {
  const entries: KubeconfigEntry[] = [
    local.kubeconfigEntry(admin, { clusterName: FLEET_CONTEXT, contextName: FLEET_CONTEXT }),
    ...members.map((m) =>
      m.twin.downstream.kubeconfigEntry(
        // One kubeconfig user per cluster: every twin's admin has a token of its own.
        { ...m.twin.identities.admin, name: `${m.spec.name}-admin` },
        { clusterName: m.spec.name, contextName: m.spec.name },
      ),
    ),
  ];
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, entries, FLEET_CONTEXT);
  const awsEnvDir = join(dir, 'aws');
  mkdirSync(awsEnvDir, { recursive: true, mode: 0o700 });
  for (const m of members) writeAwsEnv(join(awsEnvDir, `${m.spec.name}.env`), awsEnvironment(m.twin.aws));
  return { kubeconfig, awsEnvDir };
}
