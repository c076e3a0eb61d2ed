import { VirtualClock, seededRandom, type Random } from '../../../packages/uproot/src/clock/index.js';
import { createLedger, type Ledger } from '../../../packages/uproot/src/core/ownership/index.js';
import type { KubeObject } from '../../../packages/sandbox/src/apiserver/index.js';
import {
  startSimulatedManager,
  type SimulatedManager,
} from '../../../packages/sandbox/src/managers/index.js';
import {
  startRehearsalCluster,
  type ClusterNode,
  type RehearsalCluster,
  type RehearsalClusterOptions,
} from '../../../packages/sandbox/src/rehearsal/rehearsal-cluster.js';
import type { ManagerComponent } from '../../../packages/uproot/src/core/leader-migration/index.js';

/** A rehearsal cluster on a virtual clock, plus helpers to run managers and move time. */
export interface Harness {
  readonly clock: VirtualClock;
  readonly random: Random;
  readonly cluster: RehearsalCluster;
  readonly ledger: Ledger;
  readonly managers: SimulatedManager[];
  start(
    component: ManagerComponent,
    node: ClusterNode,
    args: string[],
    version: string,
    readFile?: (p: string) => string,
  ): SimulatedManager;
  /** Advances virtual time in 1 s steps until `done` holds; throws after `limitMs`. */
  until(done: () => boolean, limitMs?: number): Promise<void>;
  advance(ms: number): Promise<void>;
  events(name: string): KubeObject[];
  close(): Promise<void>;
}

export async function harness(options: Partial<RehearsalClusterOptions> = {}, seed = 7): Promise<Harness> {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const random = seededRandom(seed);
  const cluster = await startRehearsalCluster({ clock, random, ...options });
  const ledger = createLedger();
  const managers: SimulatedManager[] = [];
  const h: Harness = {
    clock,
    random,
    cluster,
    ledger,
    managers,
    start: (component, node, args, version, readFile) => {
      const m = startSimulatedManager({
        component,
        nodeName: node.name,
        args,
        kubernetesVersion: version,
        kube: cluster.kubeFor(component),
        aws: cluster.awsFor(node),
        clock,
        random,
        ledger,
        ...(readFile ? { readFile } : {}),
      });
      managers.push(m);
      return m;
    },
    until: async (done, limitMs = 120_000) => {
      const end = clock.now() + limitMs;
      while (!done()) {
        if (clock.now() >= end)
          throw new Error(`condition not reached within ${limitMs / 1000} s of virtual time`);
        await clock.advanceBy(1000);
      }
    },
    advance: (ms) => clock.advanceBy(ms),
    events: (name) =>
      cluster.api.store
        .list('events', {})
        .items.filter((e) => (e.involvedObject as { name?: string } | undefined)?.name === name),
    close: async () => {
      await Promise.all(managers.map((m) => m.stop()));
      await clock.advanceBy(1);
      await cluster.close();
    },
  };
  return h;
}

export const node = (h: Harness, name: string): KubeObject | undefined =>
  h.cluster.api.store.get('nodes', undefined, name);
