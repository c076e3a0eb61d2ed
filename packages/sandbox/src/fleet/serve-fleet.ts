/**
 * `uproot sandbox up --scenario fleet`: a fleet twin served for a person, in real (optionally scaled) time:
 * the control endpoint, DIR/sandbox.json, and the files to reach it (DIR/kubeconfig with context `rancher`
 * and one per downstream cluster, DIR/aws/<cluster>.env). Job pods run on the same scaled clock.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { RealClock } from 'uproot';
import {
  serveUntilStopped,
  startTokenControlServer,
  type ServeOptions,
} from '../twin/control/serve-until-stopped.js';
import { SANDBOX_STATE_FILE, writeSandboxState, type SandboxState } from '../twin/control/sandbox-state.js';
import type { TwinStatus } from '../twin/twin-status.js';
import { startFleetTwin, type FleetTwin } from './fleet-twin.js';

export const FLEET_SCENARIO = 'fleet';

export interface ServeFleetOptions extends ServeOptions<FleetTwin> {
  readonly clusters: number;
}

export async function serveFleet(options: ServeFleetOptions): Promise<void> {
  const clock = new RealClock({ scale: options.timeScale });
  const fleet = await startFleetTwin({
    clusters: options.clusters,
    clock,
    dir: options.dir,
    podClock: { type: 'scaled', scale: options.timeScale },
    ...(options.nodes !== undefined ? { nodes: options.nodes } : {}),
    log: options.log,
  });
  const stop = new AbortController();
  const control = await startTokenControlServer({
    now: () => clock.now(),
    status: () => fleetStatusSummary(fleet),
    ledger: () => Object.fromEntries(fleet.members.map((m) => [m.spec.name, m.twin.ledgerReport()])),
    rkeUp: async () => ({ ok: false, reason: 'the fleet twin runs RKE2 clusters only', log: [] }),
    shutdown: () => stop.abort(),
  });
  const first = fleet.members[0]!.twin;
  const state: SandboxState = {
    version: 1,
    pid: options.pid,
    scenario: FLEET_SCENARIO,
    distribution: 'rke2',
    startedAt: new Date().toISOString(),
    kubeconfig: fleet.files.kubeconfig,
    awsEnv: fleet.files.awsEnvDir,
    contexts: { downstream: fleet.members[0]!.spec.name, rancher: fleet.context },
    urls: { kubernetes: first.downstream.url, rancher: fleet.local.url, aws: first.aws.url },
    control: { url: control.url, token: control.token },
    timeScale: options.timeScale,
    // Each downstream twin's per-node IMDS endpoints are not published for the fleet (sandbox env --node
    // reads single twins); its clusters' managers reach their IMDS in process.
    nodes: [],
  };
  writeSandboxState(options.dir, state);
  await serveUntilStopped({
    signal: options.signal,
    stop: stop.signal,
    ready: () => options.onReady(state, fleet),
    close: async () => {
      await control.close();
      await fleet.close();
      removeFleetFiles(options.dir);
    },
  });
}

/** The fleet as `uproot sandbox status` shows a twin: nodes and managers summed over its clusters. */
function fleetStatusSummary(fleet: FleetTwin): TwinStatus {
  const all = fleet.members.map((m) => ({ name: m.spec.name, status: m.twin.status() }));
  const sum = (pick: (s: TwinStatus['nodes']) => number) => all.reduce((n, m) => n + pick(m.status.nodes), 0);
  return {
    scenario: `${FLEET_SCENARIO} (${all.length} clusters)`,
    distribution: 'rke2',
    kubernetesVersion: all[0]?.status.kubernetesVersion ?? '',
    apiServerVersion: all[0]?.status.apiServerVersion ?? '',
    time: all[0]?.status.time ?? new Date(fleet.clock.now()).toISOString(),
    nodes: {
      machines: sum((n) => n.machines),
      registered: sum((n) => n.registered),
      ready: sum((n) => n.ready),
      withProviderId: sum((n) => n.withProviderId),
      uninitialized: sum((n) => n.uninitialized),
      cordoned: sum((n) => n.cordoned),
    },
    managers: all.flatMap((m) => m.status.managers),
    versions: {
      kubelets: Object.fromEntries(
        all.flatMap((m) => Object.entries(m.status.versions.kubelets).map(([n, v]) => [`${m.name}/${n}`, v])),
      ),
      controlPlanePods: Object.fromEntries(
        all.flatMap((m) =>
          Object.entries(m.status.versions.controlPlanePods).map(([p, v]) => [`${m.name}/${p}`, v]),
        ),
      ),
    },
    failing: all.flatMap((m) => m.status.failing.map((f) => ({ ...f, node: `${m.name}/${f.node}` }))),
    leases: Object.fromEntries(
      all.flatMap((m) =>
        Object.entries(m.status.leases).map(([lease, holder]) => [`${m.name}/${lease}`, holder]),
      ),
    ),
  };
}

export function removeFleetFiles(dir: string): void {
  for (const name of [SANDBOX_STATE_FILE, 'kubeconfig', 'aws', 'clusters', 'pods']) {
    rmSync(join(dir, name), { recursive: true, force: true });
  }
}
