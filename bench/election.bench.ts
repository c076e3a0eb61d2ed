// Election benchmarks: `npx tsx bench/run.ts election`.
// 1. Virtual time: one simulated hour of 6 managers (3 KCM + 3 CCM, leader migration on, 15 s / 10 s / 2 s) on
//    the memory lease store: wall time and lease operations.
// 2. Real time: CPU per renewal of one leader (process.cpuUsage), on the memory store and over HTTP against the
//    sandbox API server (client and server share the process, so that figure includes the server's work).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { RealClock, seededRandom, VirtualClock } from '../packages/uproot/src/clock/index.js';
import { controllersOf, type ManagerComponent } from '../packages/uproot/src/core/leader-migration/index.js';
import { parseKubernetesVersion } from '../packages/uproot/src/core/model/kubernetes-version.js';
import {
  KubeLeaseLock,
  LeaderElector,
  runControllerManager,
  type ControllerDescriptor,
  type LeaseLock,
} from '../packages/uproot/src/election/index.js';
import { MemoryLeaseStore } from '../packages/uproot/src/election/testing.js';
import { startKubeApiServer, writeKubeconfig } from '../packages/sandbox/src/apiserver/index.js';

const HOUR = 3_600_000;

function idleControllers(component: ManagerComponent, version: string): ControllerDescriptor[] {
  return controllersOf(component, parseKubernetesVersion(version)).map((name) => ({
    name,
    isCloudProviderController:
      component === 'kube-controller-manager' && ['route', 'service', 'cloud-node-lifecycle'].includes(name),
    run: (signal) =>
      new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
  }));
}

async function simulatedHour(): Promise<Record<string, unknown>> {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = new MemoryLeaseStore({ clock });
  const ops = { get: 0, create: 0, update: 0 };
  store.observe((op) => ops[op.verb]++);
  const managers = [0, 1, 2].flatMap((node) =>
    (['kube-controller-manager', 'cloud-controller-manager'] as const).map((component) => {
      const identity = `cp-${node}_${component === 'kube-controller-manager' ? 'kcm' : 'ccm'}`;
      const version = component === 'kube-controller-manager' ? '1.26' : '1.27';
      return runControllerManager({
        component,
        identity,
        kubernetesVersion: version,
        cloudProvider: 'aws',
        migration: { enabled: true },
        leaseLockFactory: (name) => store.lock({ namespace: 'kube-system', name, identity }),
        controllers: idleControllers(component, version),
        clock,
        random: seededRandom(node * 2 + (component === 'kube-controller-manager' ? 0 : 1)),
      });
    }),
  );
  const started = performance.now();
  const cpu = process.cpuUsage();
  await clock.advanceBy(HOUR);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const exits = managers.filter((m) => m.running().length === 0 && !m.leading().main).length;
  await Promise.all(managers.map((m) => m.stop()));
  return {
    managers: managers.length,
    simulatedMs: HOUR,
    wallMs: Math.round(wallMs),
    cpuMs: Math.round((used.user + used.system) / 1000),
    leaseOperations: ops,
    standbyManagers: exits,
  };
}

async function cpuPerRenew(
  lock: LeaseLock,
  renewals: number,
): Promise<{ cpuMicrosPerRenew: number; wallMicrosPerRenew: number }> {
  const elector = new LeaderElector({
    lock,
    clock: new RealClock(),
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    callbacks: { onStartedLeading: () => undefined, onStoppedLeading: () => undefined },
  });
  if (!(await elector.tryAcquireOrRenew())) throw new Error('benchmark elector could not acquire the lease');
  for (let i = 0; i < Math.min(50, renewals); i++) await elector.tryAcquireOrRenew(); // warm up
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < renewals; i++) {
    if (!(await elector.tryAcquireOrRenew())) throw new Error('renewal failed');
  }
  const used = process.cpuUsage(cpu);
  return {
    cpuMicrosPerRenew: Math.round(((used.user + used.system) / renewals) * 10) / 10,
    wallMicrosPerRenew: Math.round(((performance.now() - started) * 1000) / renewals),
  };
}

async function overHttp(tls: boolean, renewals: number): Promise<Record<string, unknown>> {
  const server = await startKubeApiServer({ tls });
  const dir = mkdtempSync(join(tmpdir(), 'uproot-bench-election-'));
  try {
    const path = join(dir, 'kubeconfig');
    writeKubeconfig(path, [server.kubeconfigEntry()], 'sandbox');
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(path);
    const lock = new KubeLeaseLock({
      kubeConfig,
      namespace: 'kube-system',
      name: 'bench',
      identity: 'bench',
      clock: new RealClock(),
    });
    return { renewals, ...(await cpuPerRenew(lock, renewals)) };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<Record<string, unknown>> {
  const virtual = await simulatedHour();
  const memoryStore = new MemoryLeaseStore({ clock: new RealClock() });
  const memory = await cpuPerRenew(
    memoryStore.lock({ namespace: 'kube-system', name: 'bench', identity: 'bench' }),
    20_000,
  );
  let kube: Record<string, unknown>;
  try {
    kube = { http: await overHttp(false, 300), https: await overHttp(true, 100) };
  } catch (error) {
    kube = { skipped: `sandbox API server not usable: ${(error as Error).message}` };
  }
  return {
    virtualHourSixManagers: virtual,
    renewCpu: { memoryStore: { renewals: 20_000, ...memory }, kubeLeaseLockAgainstSandbox: kube },
  };
}
