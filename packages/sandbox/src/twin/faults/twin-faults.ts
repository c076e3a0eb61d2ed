import { seededRandom, type Clock, type Random } from 'uproot';
import type { KubeApiServer } from '../../apiserver/index.js';
import type { AwsEmulator } from '../../aws/index.js';
import type { LoggedService } from '../../aws/log/request-log.js';
import { anyFaults, type Faults } from '../../scenarios/fault-spec.js';
import type { ManagerLauncher, ManagerProcess, ManagerLaunch } from '../managers/manager-launcher.js';
import { managerIdentity } from '../../managers/manager-identity.js';
import type { NodeFleet } from '../nodes/node-fleet.js';
import { every } from '../runtime/work-queue.js';

/**
 * The faults a user turned on (scenario `faults:`, `--faults SPEC`), armed on a running twin once it has
 * booted, through the emulators' own injectors, and counted so a report can say which fired. Each fault
 * draws from its own Random seeded by the spec's seed, so a seed replays the same decisions.
 */

export type FaultName =
  | 'api-errors'
  | 'api-throttle'
  | 'api-latency'
  | 'watch-drops'
  | 'node-notready'
  | 'ccm-crashloop'
  | 'aws-throttle';

export interface FaultCount {
  readonly fault: FaultName;
  /** Requests answered with the fault, streams dropped, nodes made NotReady, crashes. */
  readonly fired: number;
  readonly detail: string;
}

export interface FaultsReport {
  readonly seed: number;
  readonly faults: readonly FaultCount[];
}

export interface FaultTargets {
  readonly downstream: KubeApiServer;
  /** Rancher's management API server, where the twin runs its own. */
  readonly rancher: KubeApiServer | undefined;
  readonly aws: AwsEmulator;
  readonly fleet: NodeFleet;
}

/** The services AWS throttles with a Query-protocol error (IMDS is a local endpoint, never throttled). */
const THROTTLED_SERVICES: readonly LoggedService[] = ['ec2', 'elb', 'elbv2', 'iam', 'sts', 'autoscaling'];
/** Resource requests only: health probes and discovery stay answered, as APF exempts probes. */
const RESOURCE_PATHS = /^\/apis?\/[^/]+/;
const percent = (rate: number): string => `${Math.round(rate * 10_000) / 100}%`;

export class TwinFaults {
  private readonly counters: { fault: FaultName; detail: string; count: () => number }[] = [];
  private readonly abort = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private armed = false;
  private crashes = 0;
  private notReady: { node: string; at: number } | undefined;
  readonly seed: number;

  constructor(
    private readonly spec: Faults | undefined,
    private readonly deps: {
      readonly clock: Clock;
      readonly seed: number;
      readonly log: (l: string) => void;
    },
  ) {
    this.seed = spec?.seed ?? deps.seed;
  }

  get enabled(): boolean {
    return anyFaults(this.spec);
  }

  /** One Random per fault, so turning one fault on or off does not change another's draws. */
  private random(fault: FaultName): Random {
    let h = this.seed >>> 0;
    for (const c of fault) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    return seededRandom(h);
  }

  /** The CCM crash-loop: the first CCM container started after arming exits at start N times. */
  wrapLauncher(launcher: ManagerLauncher): ManagerLauncher {
    const crash = this.spec?.ccmCrashLoop;
    if (!crash) return launcher;
    let node: string | undefined;
    const random = this.random('ccm-crashloop');
    return async (launch) => {
      if (launch.component !== 'cloud-controller-manager' || !this.armed) return launcher(launch);
      if (this.crashes >= crash.restarts || (node !== undefined && node !== launch.nodeName))
        return launcher(launch);
      node = launch.nodeName;
      this.crashes++;
      return crashingProcess(this.deps.clock, launch, random, `${this.crashes} of ${crash.restarts}`);
    };
  }

  /** Turns the faults on (after boot: the spec is about the rehearsal, not the twin's own start). */
  arm(targets: FaultTargets): void {
    if (!this.spec || this.armed) return;
    this.armed = true;
    this.armApi(targets.downstream, 'the downstream API server');
    if (targets.rancher) this.armApi(targets.rancher, "Rancher's API server");
    this.armAws(targets.aws);
    this.armNodeNotReady(targets.fleet);
    if (this.spec.ccmCrashLoop) {
      this.counters.push({
        fault: 'ccm-crashloop',
        detail: `the first cloud-controller-manager container started exits with status 1 on its first ${this.spec.ccmCrashLoop.restarts} starts`,
        count: () => this.crashes,
      });
    }
    if (this.enabled) this.deps.log(`faults: armed (seed ${this.seed}): ${JSON.stringify(this.spec)}`);
  }

  private armApi(server: KubeApiServer, where: string): void {
    const { errors, throttle, latency, dropWatches } = this.spec!.api;
    const match = { path: RESOURCE_PATHS };
    if (errors && errors.rate > 0) {
      const random = this.random('api-errors');
      // One rule per code, each with its share of the rate (rates this small add up to about the total).
      const handles = errors.codes.map((code) =>
        server.faults.add({
          match,
          probability: errors.rate / errors.codes.length,
          random,
          action: { type: 'status', code },
        }),
      );
      this.counters.push({
        fault: 'api-errors',
        detail: `${errors.codes.join('/')} to ${percent(errors.rate)} of resource requests at ${where}`,
        count: () => handles.reduce((n, h) => n + h.hits(), 0),
      });
    }
    if (throttle && throttle.rate > 0) {
      const handle = server.faults.add({
        match,
        probability: throttle.rate,
        random: this.random('api-throttle'),
        action: { type: 'status', code: 429, retryAfterSeconds: throttle.retryAfterSeconds },
      });
      this.counters.push({
        fault: 'api-throttle',
        detail: `429 TooManyRequests (Retry-After: ${throttle.retryAfterSeconds}) to ${percent(throttle.rate)} of resource requests at ${where}`,
        count: () => handle.hits(),
      });
    }
    if (latency && (latency.ms > 0 || latency.jitterMs > 0)) {
      const handle = server.faults.addLatency({
        match,
        ms: latency.ms,
        jitterMs: latency.jitterMs,
        random: this.random('api-latency'),
      });
      this.counters.push({
        fault: 'api-latency',
        detail: `${latency.ms} ms${latency.jitterMs ? ` + up to ${latency.jitterMs} ms` : ''} before each resource request at ${where}`,
        count: () => handle.hits(),
      });
    }
    if (dropWatches) {
      let dropped = 0;
      this.loops.push(
        every(
          this.deps.clock,
          dropWatches.everySeconds * 1000,
          this.abort.signal,
          () => {
            dropped += server.faults.dropWatches();
          },
          () => undefined,
        ),
      );
      this.counters.push({
        fault: 'watch-drops',
        detail: `every open watch stream of ${where} ended every ${dropWatches.everySeconds} s`,
        count: () => dropped,
      });
    }
  }

  private armAws(aws: AwsEmulator): void {
    const throttle = this.spec!.aws.throttle;
    if (!throttle || throttle.rate <= 0) return;
    const random = this.random('aws-throttle');
    const handles = THROTTLED_SERVICES.map((service) =>
      aws.faults.throttle({ service, probability: throttle.rate, random }),
    );
    this.counters.push({
      fault: 'aws-throttle',
      detail: `RequestLimitExceeded (EC2) / Throttling (ELB, IAM, STS, Auto Scaling) to ${percent(throttle.rate)} of calls`,
      count: () => handles.reduce((n, h) => n + h.fired, 0),
    });
  }

  /** When a roll first restarts a kubelet, another node stops renewing its Lease for a while. */
  private armNodeNotReady(fleet: NodeFleet): void {
    const spec = this.spec!.nodeNotReady;
    if (!spec) return;
    const random = this.random('node-notready');
    const off = fleet.onKubeletStart((restarted) => {
      if (this.notReady) return;
      const others = fleet
        .all()
        .filter((a) => a.running && a.nodeName !== undefined && a.nodeName !== restarted);
      const agent = others[Math.floor(random() * others.length)];
      if (!agent?.nodeName) return;
      const at = this.deps.clock.now();
      this.notReady = { node: agent.nodeName, at };
      fleet.suspendHeartbeats(agent.nodeName, at + spec.seconds * 1000);
      this.deps.log(
        `faults: ${agent.nodeName} stops renewing its Lease for ${spec.seconds} s (the roll restarted ${restarted})`,
      );
      off();
    });
    this.counters.push({
      fault: 'node-notready',
      detail: `one node stops renewing its Lease for ${spec.seconds} s when a roll first restarts a kubelet`,
      count: () => (this.notReady ? 1 : 0),
    });
  }

  /** What is configured and how often each fired (0: configured, never triggered). */
  report(): FaultsReport {
    return {
      seed: this.seed,
      faults: this.counters.map((c) => ({
        fault: c.fault,
        fired: c.count(),
        detail:
          c.fault === 'node-notready' && this.notReady
            ? `${this.notReady.node} stopped renewing its Lease ${this.spec!.nodeNotReady!.seconds} s in the middle of a roll`
            : c.detail,
      })),
    };
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
  }
}

/** A container that exits with status 1 a moment after it starts (the kubelet restarts it after back-off). */
function crashingProcess(
  clock: Clock,
  launch: ManagerLaunch,
  random: Random,
  which: string,
): Promise<ManagerProcess> {
  let running = true;
  let finish: (exit: { code: number; reason: string }) => void = () => undefined;
  const exited = new Promise<{ code: number; reason: string }>((resolve) => (finish = resolve));
  const reason = `injected fault ccm-crashloop (${which}): exiting at start`;
  launch.log(`F ${reason}`);
  void clock.sleep(1_000).then(() => {
    running = false;
    finish({ code: 1, reason });
  });
  return Promise.resolve({
    identity: managerIdentity(launch.nodeName, random),
    exited,
    get running() {
      return running;
    },
    stop: async () => {
      running = false;
      finish({ code: 0, reason: 'killed' });
    },
  });
}
