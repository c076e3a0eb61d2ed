/**
 * The kubelet of the twin's local cluster, for Job pods only: each pod is a local process running the uproot
 * CLI (the only image the twin can run). A process has no mount namespace, so each volume is a directory under
 * the pod's own (DIR/pods/<namespace>/<pod>/volumes/<volume>) and every environment value or argument naming a
 * path under a mountPath is rewritten to it. Projected service-account tokens are minted for the pod and
 * accepted by the local API server as `system:serviceaccount:<namespace>:<name>`, RBAC applying.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Clock } from 'uproot';
import type { KubeApiServer } from '../../apiserver/index.js';
import { isRecord, metaOf, type KubeObject } from '../../twin/kube/kube-types.js';
import { R, type TwinKube } from '../../twin/kube/twin-kube.js';
import { ClockBridge, type PodClockMode } from './clock-bridge.js';

export interface PodExit {
  readonly exitCode: number;
  readonly signal?: string;
  readonly reason: 'Completed' | 'Error' | 'StartError';
  readonly message?: string;
}

export interface RunningPod {
  readonly pid: number | undefined;
  readonly dir: string;
  /** The token the pod's service account was issued (for tests that look for leaks). */
  readonly token: string | undefined;
  readonly exited: Promise<PodExit>;
  kill(signal: NodeJS.Signals): void;
}

export interface PodProcessesOptions {
  readonly server: KubeApiServer;
  readonly kube: TwinKube;
  readonly clock: Clock;
  readonly clockMode: PodClockMode;
  readonly dir: string;
  readonly log: (line: string) => void;
  /** How to start the CLI in a pod (node arguments before the pod's own); default this checkout's pod entry. */
  readonly entry?: readonly string[];
}

/** How to start the CLI: this checkout's pod entry, through tsx when running from source. */
function entryCommand(): string[] {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const tsx = createRequire(here).resolve('tsx');
    // From source, uproot too comes from source (its `uproot-source` export condition), as in the tests.
    return [
      '--conditions=uproot-source',
      '--import',
      pathToFileURL(tsx).href,
      fileURLToPath(new URL('./pod-entry.ts', here)),
    ];
  }
  return [fileURLToPath(new URL('./pod-entry.js', here))];
}

const specOf = (pod: KubeObject): Record<string, unknown> => (isRecord(pod.spec) ? pod.spec : {});
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isRecord) : []);

export class PodProcesses {
  private readonly running = new Map<string, RunningPod>();

  constructor(private readonly options: PodProcessesOptions) {}

  get(namespace: string, name: string): RunningPod | undefined {
    return this.running.get(`${namespace}/${name}`);
  }

  all(): RunningPod[] {
    return [...this.running.values()];
  }

  /** Starts the pod's first container; resolves `exited` with how it ended. */
  start(pod: KubeObject): RunningPod {
    const meta = metaOf(pod);
    const key = `${meta.namespace}/${meta.name}`;
    const dir = resolve(this.options.dir, 'pods', meta.namespace ?? 'default', meta.name ?? 'pod');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const container = list(specOf(pod).containers)[0] ?? {};
    const command = [
      ...(Array.isArray(container.command) ? container.command : []),
      ...(Array.isArray(container.args) ? container.args : []),
    ].map(String);
    if (command[0] !== 'uproot') {
      const failed: RunningPod = {
        pid: undefined,
        dir,
        token: undefined,
        exited: Promise.resolve({
          exitCode: 128,
          reason: 'StartError',
          message: `the sandbox runs only the uproot image's \`uproot\` command, not ${JSON.stringify(command[0] ?? '')}`,
        }),
        kill: () => undefined,
      };
      this.running.set(key, failed);
      return failed;
    }
    const { mounts, token } = this.mountVolumes(pod, dir);
    const relocate = (value: string): string => {
      for (const [path, to] of mounts)
        if (value === path || value.startsWith(`${path}/`)) return to + value.slice(path.length);
      return value;
    };
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: String(this.options.server.port),
    };
    for (const e of list(container.env))
      if (typeof e.name === 'string' && typeof e.value === 'string') env[e.name] = relocate(e.value);
    const logFd = openSync(join(dir, 'container.log'), 'a', 0o600);
    const child: ChildProcess = spawn(
      process.execPath,
      [...(this.options.entry ?? entryCommand()), ...command.slice(1).map(relocate)],
      { cwd: dir, env, stdio: ['ignore', logFd, logFd, 'ipc'] },
    );
    closeSync(logFd);
    new ClockBridge(child, this.options.clock, this.options.clockMode).start();
    const exited = new Promise<PodExit>((done) => {
      child.once('error', (error) => done({ exitCode: 128, reason: 'StartError', message: error.message }));
      child.once('exit', (code, signal) => {
        const exitCode = code ?? 128 + signalNumber(signal);
        done({ exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', ...(signal ? { signal } : {}) });
      });
    });
    const running: RunningPod = {
      pid: child.pid,
      dir,
      token,
      exited,
      kill: (signal) => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      },
    };
    this.running.set(key, running);
    this.options.log(`pod ${key}: started pid ${child.pid}`);
    return running;
  }

  /** The pod's volumes as directories: emptyDir, and projected token, ConfigMap keys and downward API. */
  private mountVolumes(pod: KubeObject, dir: string): { mounts: [string, string][]; token?: string } {
    const meta = metaOf(pod);
    const spec = specOf(pod);
    const container = list(spec.containers)[0] ?? {};
    const volumes = new Map(list(spec.volumes).map((v) => [String(v.name), v]));
    const mounts: [string, string][] = [];
    let token: string | undefined;
    for (const mount of list(container.volumeMounts)) {
      const volume = volumes.get(String(mount.name));
      if (!volume || typeof mount.mountPath !== 'string') continue;
      const to = join(dir, 'volumes', String(mount.name));
      mkdirSync(to, { recursive: true, mode: 0o700 });
      const sources = isRecord(volume.projected) ? list(volume.projected.sources) : [];
      for (const source of sources) {
        if (isRecord(source.serviceAccountToken)) {
          token ??= this.issueToken(
            meta.namespace ?? 'default',
            String(spec.serviceAccountName ?? 'default'),
          );
          writeFileSync(join(to, String(source.serviceAccountToken.path ?? 'token')), token, { mode: 0o600 });
        }
        if (isRecord(source.configMap)) {
          const cm = this.options.kube.get(R.configmaps, meta.namespace, String(source.configMap.name));
          const data = isRecord(cm?.data) ? cm.data : {};
          for (const item of list(source.configMap.items))
            if (typeof data[String(item.key)] === 'string')
              writeFileSync(join(to, String(item.path)), data[String(item.key)] as string, { mode: 0o600 });
        }
        if (isRecord(source.downwardAPI))
          for (const item of list(source.downwardAPI.items))
            if (isRecord(item.fieldRef) && item.fieldRef.fieldPath === 'metadata.namespace')
              writeFileSync(join(to, String(item.path)), meta.namespace ?? 'default', { mode: 0o600 });
      }
      mounts.push([mount.mountPath.replace(/\/+$/, ''), to]);
    }
    // Longest mount path first, so a nested mount wins.
    mounts.sort((a, b) => b[0].length - a[0].length);
    return { mounts, ...(token ? { token } : {}) };
  }

  /** A token for the pod (kube-apiserver's TokenRequest: here an opaque bearer token, accepted from now on). */
  private issueToken(namespace: string, serviceAccount: string): string {
    const token = `sandbox-sa-${randomBytes(24).toString('hex')}`;
    this.options.server.addIdentity({
      name: `pod-token-${token.slice(-8)}`,
      token,
      user: `system:serviceaccount:${namespace}:${serviceAccount}`,
    });
    return token;
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : signal === 'SIGINT' ? 2 : 0;
}
