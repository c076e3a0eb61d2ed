import type { V1Node, V1Service } from '@kubernetes/client-node';
import type { Clock } from 'uproot';
import type { ManagerComponent } from 'uproot/core';
import type { AwsCloud } from './aws-cloud.js';
import type { EventRecorder } from './event-recorder.js';
import type { KubeApi } from './kube-api.js';
import type { ResourceInformer } from './resource-informer.js';
import type { InstanceTopology } from './instance-topology.js';

/** One thing a controller did, for the ownership ledger. */
export interface ControllerAction {
  /** The controller's name as its manager keys it (`service`, `service-lb-controller`, ...). */
  readonly controller: string;
  readonly component: ManagerComponent;
  readonly identity: string;
  /** Clock milliseconds. */
  readonly time: number;
  /** What it did, e.g. `aws:CreateLoadBalancer a1b2…` or `kube:update node/ip-10-0-1-5 (initialize)`. */
  readonly action: string;
}

export type ActionSink = (action: ControllerAction) => void;

/** The shared caches of one manager process (its SharedInformerFactory). */
export interface SharedInformers {
  nodes(): Promise<ResourceInformer<V1Node>>;
  services(): Promise<ResourceInformer<V1Service>>;
}

/** Settings read from the manager's flags that the cloud controllers need. */
export interface CloudControllerSettings {
  readonly clusterName: string;
  readonly clusterCidr: string | undefined;
  readonly nodeCidrMaskSize: number;
  readonly allocateNodeCidrs: boolean;
  readonly configureCloudRoutes: boolean;
}

/** What a cloud controller gets to work with. */
export interface ControllerContext {
  readonly controller: string;
  readonly component: ManagerComponent;
  readonly identity: string;
  readonly clock: Clock;
  readonly kube: KubeApi;
  readonly cloud: AwsCloud;
  readonly informers: SharedInformers;
  readonly events: EventRecorder;
  readonly settings: CloudControllerSettings;
  /** The process's instance-topology lookups (CCM releases that label nodes with their network topology). */
  readonly topology?: InstanceTopology;
  /** Records an action in the ledger at the clock's now. */
  record(action: string): void;
  log(line: string): void;
}

/** Thrown by `guard` when the controller has been told to stop: no write may follow. */
export class ControllerStopped extends Error {
  constructor() {
    super('controller stopped');
    this.name = 'ControllerStopped';
  }
}

/**
 * Checks the stop signal before a write. A real manager exits the moment it loses its lease; a simulated one
 * must at least never start a write after being told to stop, or the ledger would show a false overlap.
 */
export function guard(signal: AbortSignal): void {
  if (signal.aborted) throw new ControllerStopped();
}

/**
 * Runs `pass` now and then every `periodMs` on the clock until `signal` aborts; `wake` lets an informer
 * trigger an early pass (events during a pass cause exactly one more). A failing pass is logged and retried
 * on the next period. Resolves when stopped.
 */
export async function runPeriodically(options: {
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly periodMs: number;
  readonly pass: () => Promise<void>;
  readonly wake?: (notify: () => void) => () => void;
  readonly onError: (error: unknown) => void;
}): Promise<void> {
  const { clock, signal } = options;
  let dirty = false;
  let sleeping: AbortController | undefined;
  const unsubscribe = options.wake?.(() => {
    dirty = true;
    sleeping?.abort();
  });
  try {
    while (!signal.aborted) {
      dirty = false;
      try {
        await options.pass();
      } catch (error) {
        if (signal.aborted || error instanceof ControllerStopped) break;
        options.onError(error);
      }
      if (signal.aborted) break;
      if (dirty) continue;
      sleeping = new AbortController();
      const stopSleep = (): void => sleeping?.abort();
      signal.addEventListener('abort', stopSleep, { once: true });
      try {
        await clock.sleep(options.periodMs, sleeping.signal);
      } catch {
        // Woken early or stopped; the loop condition tells which.
      } finally {
        signal.removeEventListener('abort', stopSleep);
        sleeping = undefined;
      }
    }
  } finally {
    unsubscribe?.();
  }
}

/** Per-key exponential backoff for failing items, like a rate-limited work queue (clock time). */
export class Backoff {
  private readonly state = new Map<string, { failures: number; notBefore: number }>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  due(key: string, now: number): boolean {
    const s = this.state.get(key);
    return !s || now >= s.notBefore;
  }

  failed(key: string, now: number): void {
    const failures = (this.state.get(key)?.failures ?? 0) + 1;
    const delay = Math.min(this.maxMs, this.baseMs * 2 ** (failures - 1));
    this.state.set(key, { failures, notBefore: now + delay });
  }

  succeeded(key: string): void {
    this.state.delete(key);
  }

  forget(key: string): void {
    this.state.delete(key);
  }
}
