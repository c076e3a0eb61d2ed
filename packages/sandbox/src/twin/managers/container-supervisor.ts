import type { Clock } from 'uproot';
import type { ManagerExit, ManagerProcess } from './manager-launcher.js';

/**
 * One container the kubelet keeps running: it starts the process (a controller manager, a kube-apiserver),
 * and when the process exits (a lost lease ends a controller manager with status 1) starts it again after the kubelet's back-off (10 s doubling to
 * 5 min, reset after 10 min of running), reporting each state change for the pod's status.
 */

export type ContainerState =
  | {
      readonly type: 'waiting';
      readonly reason: 'ContainerCreating' | 'CrashLoopBackOff' | 'ErrImagePull' | 'ImagePullBackOff';
      readonly message?: string;
    }
  | { readonly type: 'running'; readonly startedAt: number }
  | {
      readonly type: 'terminated';
      readonly exitCode: number;
      readonly reason: string;
      readonly finishedAt: number;
    };

export interface ContainerSnapshot {
  readonly state: ContainerState;
  readonly restartCount: number;
  readonly lastTermination:
    | {
        readonly exitCode: number;
        readonly reason: string;
        readonly message: string;
        readonly startedAt: number;
        readonly finishedAt: number;
      }
    | undefined;
  readonly identity: string | undefined;
}

export interface SupervisorHooks {
  onChange(snapshot: ContainerSnapshot): void;
  onBackOff(exit: ManagerExit, delayMs: number): void;
  onError(error: unknown): void;
}

const INITIAL_BACKOFF_MS = 10_000;
const MAX_BACKOFF_MS = 300_000;
const RESET_AFTER_MS = 600_000;

export class ContainerSupervisor {
  private stopped = false;
  private readonly abort = new AbortController();
  private process: ManagerProcess | undefined;
  private loop: Promise<void> | undefined;
  private snapshot: ContainerSnapshot = {
    state: { type: 'waiting', reason: 'ContainerCreating' },
    restartCount: 0,
    lastTermination: undefined,
    identity: undefined,
  };

  constructor(
    private readonly clock: Clock,
    /** Starts the container's process once (called again for every restart). */
    private readonly startProcess: () => Promise<ManagerProcess>,
    private readonly hooks: SupervisorHooks,
  ) {}

  get current(): ContainerSnapshot {
    return this.snapshot;
  }

  get identity(): string | undefined {
    return this.process?.identity;
  }

  start(): void {
    if (!this.loop) this.loop = this.clock.track(Promise.resolve()).then(() => this.run());
  }

  /** Stops the process (like the kubelet killing the container) and the restart loop. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    // Not tracked: a manager's shutdown may itself wait for (virtual) time to pass.
    const process = this.process;
    if (process?.running) await process.stop().catch(() => undefined);
    await this.loop?.catch(() => undefined);
  }

  private update(next: Partial<ContainerSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...next };
    this.hooks.onChange(this.snapshot);
  }

  private async run(): Promise<void> {
    let backoff = INITIAL_BACKOFF_MS;
    while (!this.stopped) {
      const startedAt = this.clock.now();
      let exit: ManagerExit;
      try {
        this.process = await this.clock.track(this.startProcess());
        if (this.stopped) {
          await this.process.stop().catch(() => undefined);
          return;
        }
        this.update({ state: { type: 'running', startedAt }, identity: this.process.identity });
        const stopped = new Promise<ManagerExit>((resolve) =>
          this.abort.signal.addEventListener('abort', () => resolve({ code: 0, reason: 'killed' }), {
            once: true,
          }),
        );
        exit = await Promise.race([this.process.exited, stopped]);
      } catch (error) {
        this.hooks.onError(error);
        exit = { code: 1, reason: error instanceof Error ? error.message : String(error) };
      }
      if (this.stopped) return;
      const finishedAt = this.clock.now();
      if (finishedAt - startedAt >= RESET_AFTER_MS) backoff = INITIAL_BACKOFF_MS;
      this.update({
        state: {
          type: 'waiting',
          reason: 'CrashLoopBackOff',
          message: `back-off ${Math.round(backoff / 1000)}s restarting failed container`,
        },
        restartCount: this.snapshot.restartCount + 1,
        lastTermination: {
          exitCode: exit.code,
          reason: exit.code === 0 ? 'Completed' : 'Error',
          message: exit.reason,
          startedAt,
          finishedAt,
        },
      });
      this.hooks.onBackOff(exit, backoff);
      try {
        await this.clock.sleep(backoff, this.abort.signal);
      } catch {
        return;
      }
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}
