import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { RealClock } from 'uproot';
import type { LoadedScenario } from '../scenarios/index.js';
import {
  serveUntilStopped,
  startTokenControlServer,
  type ServeOptions,
} from './control/serve-until-stopped.js';
import { SANDBOX_STATE_FILE, writeSandboxState, type SandboxState } from './control/sandbox-state.js';
import { startTwin, type Twin } from './twin.js';

/**
 * Runs a twin for a person: real (optionally scaled) time, the control endpoint, DIR/sandbox.json; serves
 * until the signal aborts or `uproot sandbox down` asks it to stop, then removes the files it wrote.
 */
export interface ServeTwinOptions extends ServeOptions<Twin> {
  readonly loaded: LoadedScenario;
}

export async function serveTwin(options: ServeTwinOptions): Promise<void> {
  const clock = new RealClock({ scale: options.timeScale });
  const twin = await startTwin({
    scenario: options.loaded.scenario,
    clock,
    dir: options.dir,
    ...(options.nodes !== undefined ? { nodes: options.nodes } : {}),
    log: options.log,
  });
  const stop = new AbortController();
  const served = await exposeTwin(twin, {
    pid: options.pid,
    scenario: options.loaded.builtin || !options.loaded.file ? twin.scenario.name : options.loaded.file,
    timeScale: options.timeScale,
    onShutdown: () => stop.abort(),
  });
  await serveUntilStopped({
    signal: options.signal,
    stop: stop.signal,
    ready: () => options.onReady(served.state, twin),
    close: async () => {
      await served.close();
      await twin.close();
      removeTwinFiles(options.dir);
    },
  });
}

/**
 * Opens a twin's control endpoint and writes DIR/sandbox.json, so the `uproot sandbox` commands can reach
 * it (also for twins started in-process, as tests do).
 */
export async function exposeTwin(
  twin: Twin,
  options: {
    readonly pid: number;
    readonly scenario?: string;
    readonly timeScale: number;
    readonly onShutdown: () => void;
  },
): Promise<{ state: SandboxState; close(): Promise<void> }> {
  const control = await startTokenControlServer({
    now: () => twin.clock.now(),
    status: () => twin.status(),
    ledger: () => twin.ledgerReport(),
    rkeUp: (config, file) => twin.applyRkeConfig(config, file),
    shutdown: options.onShutdown,
  });
  // Every node's own instance metadata endpoint, open from here on (what 169.254.169.254 is on its instance).
  const agents = twin.nodes.all();
  const endpoints = await Promise.all(agents.map((a) => twin.aws.openInstanceImds(a.instance.instanceId)));
  const nodes = agents.flatMap((agent, n) =>
    agent.nodeName
      ? [{ name: agent.nodeName, instanceId: agent.instance.instanceId, imdsEndpoint: endpoints[n]! }]
      : [],
  );
  const state: SandboxState = {
    version: 1,
    pid: options.pid,
    scenario: options.scenario ?? twin.scenario.name,
    distribution: twin.scenario.distribution,
    startedAt: new Date().toISOString(),
    kubeconfig: twin.files.kubeconfig,
    awsEnv: twin.files.awsEnv,
    ...(twin.files.rkeConfig ? { rkeConfig: twin.files.rkeConfig } : {}),
    contexts: {
      downstream: twin.contexts.downstream,
      ...(twin.contexts.rancher ? { rancher: twin.contexts.rancher } : {}),
    },
    urls: {
      kubernetes: twin.downstream.url,
      ...(twin.management ? { rancher: twin.management.url } : {}),
      aws: twin.aws.url,
    },
    control: { url: control.url, token: control.token },
    timeScale: options.timeScale,
    region: twin.aws.region,
    nodes,
  };
  writeSandboxState(twin.dir, state);
  return { state, close: () => control.close() };
}

/** What a stopped twin leaves behind is only its log. */
export function removeTwinFiles(dir: string): void {
  for (const name of [SANDBOX_STATE_FILE, 'kubeconfig', 'aws.env', 'cluster.yml', 'nodes']) {
    rmSync(join(dir, name), { recursive: true, force: true });
  }
}
