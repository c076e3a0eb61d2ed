import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import {
  startKubeApiServer,
  writeKubeconfig,
  type Identity,
  type KubeApiServer,
  type KubeApiServerOptions,
  type KubeObject,
} from '../../../packages/sandbox/src/apiserver/index.js';

export const KCM: Identity = { name: 'kcm', token: 'kcm-token', user: 'system:kube-controller-manager' };
export const ADMIN: Identity = {
  name: 'admin',
  token: 'admin-token',
  user: 'admin',
  groups: ['system:masters'],
};

export interface KubectlResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Sandbox {
  readonly server: KubeApiServer;
  readonly dir: string;
  /** kubeconfig with contexts `admin` (current) and `kcm`. */
  readonly kubeconfig: string;
  kubectl(
    args: string[],
    options?: { env?: Record<string, string>; timeoutMs?: number },
  ): Promise<KubectlResult>;
  spawnKubectl(args: string[]): ChildProcess;
  client(context?: string): k8s.KubeConfig;
  close(): Promise<void>;
}

/** Starts a server with an admin and a controller-manager identity and a kubeconfig for both. */
export async function startSandbox(options: KubeApiServerOptions = {}): Promise<Sandbox> {
  const server = await startKubeApiServer({ identities: [ADMIN, KCM], ...options });
  const dir = mkdtempSync(join(tmpdir(), 'uproot-apiserver-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(
    kubeconfig,
    [
      server.kubeconfigEntry(ADMIN, { contextName: 'admin' }),
      server.kubeconfigEntry(KCM, { contextName: 'kcm', namespace: 'kube-system' }),
    ],
    'admin',
  );
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    KUBECONFIG: kubeconfig,
    KUBECACHEDIR: join(dir, 'cache'),
  };
  const children = new Set<ChildProcess>();
  return {
    server,
    dir,
    kubeconfig,
    kubectl(args, opts = {}) {
      return new Promise((resolve) => {
        execFile(
          'kubectl',
          args,
          { env: { ...env, ...opts.env }, timeout: opts.timeoutMs ?? 60_000 },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
            resolve({ code, stdout, stderr });
          },
        );
      });
    },
    spawnKubectl(args) {
      const child = spawn('kubectl', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      collected(child);
      children.add(child);
      child.on('exit', () => children.delete(child));
      return child;
    },
    client(context = 'admin') {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(kubeconfig);
      kc.setCurrentContext(context);
      return kc;
    },
    async close() {
      for (const c of children) c.kill('SIGKILL');
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const outputs = new WeakMap<ChildProcess, { text: string; listeners: Set<() => void> }>();

function collected(child: ChildProcess): { text: string; listeners: Set<() => void> } {
  let entry = outputs.get(child);
  if (!entry) {
    const e = { text: '', listeners: new Set<() => void>() };
    child.stdout?.on('data', (chunk: Buffer) => {
      e.text += chunk.toString();
      for (const l of [...e.listeners]) l();
    });
    outputs.set(child, e);
    entry = e;
  }
  return entry;
}

/** Resolves with everything the child printed so far once `predicate` holds for it. */
export function waitForOutput(
  child: ChildProcess,
  predicate: (out: string) => boolean,
  timeoutMs = 30_000,
): Promise<string> {
  const entry = collected(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      entry.listeners.delete(check);
      reject(new Error(`timed out waiting for output; got:\n${entry.text}`));
    }, timeoutMs);
    function check(): void {
      if (!predicate(entry.text)) return;
      clearTimeout(timer);
      entry.listeners.delete(check);
      resolve(entry.text);
    }
    entry.listeners.add(check);
    check();
  });
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });
}

/** Splits table output into rows of whitespace-separated cells (header first). */
export function tableRows(text: string): string[][] {
  return text
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
}

export function node(
  name: string,
  options: { controlPlane?: boolean; ready?: boolean; providerID?: string } = {},
): KubeObject {
  const labels: Record<string, string> = { 'kubernetes.io/hostname': name };
  if (options.controlPlane) {
    labels['node-role.kubernetes.io/control-plane'] = 'true';
    labels['node-role.kubernetes.io/etcd'] = 'true';
  }
  return {
    metadata: { name, labels },
    spec: { providerID: options.providerID ?? `aws:///us-east-1a/i-${name}` },
    status: {
      conditions: [
        { type: 'Ready', status: options.ready === false ? 'False' : 'True', reason: 'KubeletReady' },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.32.4+rke2r1',
        osImage: 'Ubuntu 22.04',
        kernelVersion: '6.5',
        containerRuntimeVersion: 'containerd://1.7',
      },
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: name },
      ],
    },
  };
}
