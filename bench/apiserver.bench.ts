// Sandbox API server figures at 500 and 5,000 nodes (4 pods per node): paged node lists, single-object GET
// throughput as the admin (no RBAC) and as the controller manager (RBAC), GETs on a new connection each
// (client-node 1.4's pattern: the TLS handshake cost), watch fan-out lag and server/client CPU per update,
// resident memory, and the in-process cost of one RBAC decision. The server runs on the main thread;
// clients run in a worker thread so the server keeps its core; the watch lag is also measured with the
// clients in a child process, so the server's share of it is known. Run: `npx tsx bench/run.ts apiserver`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  RbacAuthorizer,
  startKubeApiServer,
  type KubeApiServer,
  type RequestAttributes,
} from '../packages/sandbox/src/apiserver/index.js';
import type { ServerResponse } from 'node:http';
import { userInfoOf } from '../packages/sandbox/src/apiserver/auth/identity.js';
import { parseFieldSelector } from '../packages/sandbox/src/apiserver/selectors/field-selector.js';
import { parseLabelSelector } from '../packages/sandbox/src/apiserver/selectors/label-selector.js';
import { WatchHub } from '../packages/sandbox/src/apiserver/watch/watch-hub.js';
import { storeRbacSource } from '../packages/sandbox/src/apiserver/auth/store-rbac-source.js';
import { RealClock, seededRandom } from '../packages/uproot/src/clock/index.js';

const CLIENT = String.raw`
// The same client runs in a worker thread (parentPort) or in a child process (IPC), so the watch lag can be
// read with the client sharing the server's process or not.
const threads = require('node:worker_threads');
const inChild = !threads.parentPort;
const parentPort = inChild
  ? { on: (e, f) => process.on(e, f), postMessage: (m) => process.send(m) }
  : threads.parentPort;
const workerData = inChild ? JSON.parse(process.env.APISERVER_BENCH_CLIENT) : threads.workerData;
const https = require('node:https');
const http = require('node:http');
const { url, token, ca } = workerData;
const lib = url.startsWith('https') ? https : http;
const agent = new lib.Agent({ keepAlive: true, maxSockets: 256, ...(ca ? { ca } : {}) });
const headers = { authorization: 'Bearer ' + token, accept: 'application/json' };
const now = () => performance.timeOrigin + performance.now();
// This worker thread's CPU seconds (the client side of the measurements).
const fs = require('node:fs');
const threadCpu = () => {
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch { return NaN; }
};
// Go clients (kubectl, controllers) set TCP_NODELAY; without it loopback round trips stall on Nagle.
const nodelay = (req) => req.on('socket', (s) => s.setNoDelay(true));

function get(path, as = token, via = agent) {
  return new Promise((resolve, reject) => {
    const req = lib.request(url + path, { agent: via, headers: { ...headers, authorization: 'Bearer ' + as } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
    });
    nodelay(req);
    req.on('error', reject);
    req.end();
  });
}

async function list(rounds) {
  const times = [];
  let items = 0;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    let token = '';
    items = 0;
    do {
      const res = await get('/api/v1/nodes?limit=500' + (token ? '&continue=' + encodeURIComponent(token) : ''));
      const doc = JSON.parse(res.body.toString('utf8'));
      items += doc.items.length;
      token = doc.metadata.continue || '';
    } while (token);
    times.push(performance.now() - start);
  }
  return { times, items };
}

async function getLoad(names, durationMs, concurrency, as) {
  let done = 0, errors = 0, i = 0;
  const end = performance.now() + durationMs;
  const start = performance.now();
  async function loop() {
    while (performance.now() < end) {
      const name = names[i++ % names.length];
      const res = await get('/api/v1/nodes/' + name, as);
      if (res.status === 200) done++; else errors++;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop));
  return { requests: done, errors, seconds: (performance.now() - start) / 1000 };
}

// Like @kubernetes/client-node 1.4, which builds a new Agent for every call: a new connection (and TLS
// handshake, with no session to resume) per request.
async function freshGets(name, count, as) {
  const start = performance.now();
  const cpu0 = threadCpu();
  let errors = 0;
  for (let i = 0; i < count; i++) {
    const fresh = new lib.Agent({ keepAlive: false, ...(ca ? { ca } : {}) });
    const res = await get('/api/v1/nodes/' + name, as, fresh);
    if (res.status !== 200) errors++;
  }
  return { seconds: (performance.now() - start) / 1000, clientCpuSeconds: threadCpu() - cpu0, errors };
}

function watch(count, rv, expected) {
  return new Promise((resolveAll) => {
    const lags = new Float64Array(count * expected);
    let n = 0, ready = 0, finished = 0, last = performance.now();
    const perWatcher = new Array(count).fill(0);
    const reqs = [];
    const SENT = Buffer.from('sent=');
    let cpu0 = NaN;
    const finish = () => {
      clearInterval(idle);
      const clientCpuSeconds = threadCpu() - cpu0;
      for (const r of reqs) r.destroy();
      resolveAll({ lags: Array.from(lags.subarray(0, n)), perWatcher, clientCpuSeconds });
    };
    const idle = setInterval(() => { if (performance.now() - last > 10000) finish(); }, 1000);
    for (let w = 0; w < count; w++) {
      const req = lib.request(url + '/api/v1/nodes?watch=true&resourceVersion=' + rv, { agent, headers }, (res) => {
        if (++ready === count) {
          cpu0 = threadCpu();
          parentPort.postMessage({ type: 'ready' });
        }
        let rest = null;
        res.on('data', (chunk) => {
          const t = now();
          last = performance.now();
          const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
          let from = 0, nl;
          while ((nl = buf.indexOf(10, from)) >= 0) {
            const at = buf.indexOf(SENT, from);
            if (at >= 0 && at < nl) {
              lags[n++] = t - Number(buf.toString('latin1', at + 5, buf.indexOf(34, at)));
              if (++perWatcher[w] === expected && ++finished === count) finish();
            }
            from = nl + 1;
          }
          rest = from < buf.length ? buf.subarray(from) : null;
        });
      });
      nodelay(req);
      req.end();
      reqs.push(req);
    }
  });
}

parentPort.on('message', async (m) => {
  if (m.type === 'list') parentPort.postMessage({ type: 'result', value: await list(m.rounds) });
  if (m.type === 'get') parentPort.postMessage({ type: 'result', value: await getLoad(m.names, m.durationMs, m.concurrency, m.token) });
  if (m.type === 'fresh') parentPort.postMessage({ type: 'result', value: await freshGets(m.name, m.count, m.token) });
  if (m.type === 'watch') parentPort.postMessage({ type: 'result', value: await watch(m.count, m.rv, m.expected) });
  if (m.type === 'exit') { agent.destroy(); process.exit(0); }
});
`;

const KCM = { name: 'kcm', token: 'bench-kcm', user: 'system:kube-controller-manager' };

interface Client {
  call<T>(message: Record<string, unknown>, onReady?: () => void): Promise<T>;
  close(): Promise<void>;
}

/** Where the bench's clients run: a worker thread of the server's process, or a process of their own. */
type ClientPlace = 'worker-thread' | 'child-process';

function startClient(server: KubeApiServer, place: ClientPlace = 'worker-thread'): Client {
  const admin = server.identities()[0]!;
  const data = { url: server.url, token: admin.token, ca: server.certificateAuthority };
  const port =
    place === 'worker-thread'
      ? new Worker(CLIENT, { eval: true, workerData: data })
      : spawn(process.execPath, ['-e', CLIENT], {
          env: { ...process.env, APISERVER_BENCH_CLIENT: JSON.stringify(data) },
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
  const send = (m: Record<string, unknown>): void => {
    if (port instanceof Worker) port.postMessage(m);
    else port.send(m);
  };
  return {
    call<T>(message: Record<string, unknown>, onReady?: () => void): Promise<T> {
      return new Promise((resolve, reject) => {
        const onMessage = (m: { type: string; value?: T }): void => {
          if (m.type === 'ready') onReady?.();
          if (m.type === 'result') {
            port.off('message', onMessage);
            resolve(m.value as T);
          }
        };
        port.on('message', onMessage);
        port.once('error', reject);
        send(message);
      });
    },
    close: async () => {
      const exited = new Promise((r) => port.once('exit', r));
      send({ type: 'exit' });
      await exited;
    },
  };
}

const nodeName = (i: number): string => `node-${String(i).padStart(5, '0')}`;

function nodeObject(i: number): Record<string, unknown> {
  const name = nodeName(i);
  const condition = (type: string, status: string) => ({
    type,
    status,
    lastHeartbeatTime: '2026-01-01T00:00:00Z',
    lastTransitionTime: '2026-01-01T00:00:00Z',
    reason: `Kubelet${type}`,
    message: `kubelet reports ${type}`,
  });
  return {
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'topology.kubernetes.io/zone': `us-east-1${'abc'[i % 3]}`,
        'node.kubernetes.io/instance-type': 'm5.large',
        ...(i < 3 ? { 'node-role.kubernetes.io/control-plane': 'true' } : {}),
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: {
      providerID: `aws:///us-east-1a/i-${(0x1000000 + i).toString(16)}`,
      podCIDR: `10.42.${i % 256}.0/24`,
      podCIDRs: [`10.42.${i % 256}.0/24`],
    },
    status: {
      capacity: { cpu: '2', memory: '8022436Ki', pods: '110', 'ephemeral-storage': '81106868Ki' },
      allocatable: { cpu: '2', memory: '7920036Ki', pods: '110', 'ephemeral-storage': '78900000Ki' },
      conditions: [
        condition('MemoryPressure', 'False'),
        condition('DiskPressure', 'False'),
        condition('PIDPressure', 'False'),
        condition('Ready', 'True'),
      ],
      addresses: [
        { type: 'InternalIP', address: `10.0.${(i >> 8) & 255}.${i & 255}` },
        { type: 'Hostname', address: name },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.32.4+rke2r1',
        kubeProxyVersion: 'v1.32.4+rke2r1',
        osImage: 'Ubuntu 22.04.4 LTS',
        kernelVersion: '6.5.0-1014-aws',
        containerRuntimeVersion: 'containerd://1.7.17-k3s1',
        operatingSystem: 'linux',
        architecture: 'amd64',
        machineID: 'ec2'.padEnd(32, '0'),
        systemUUID: 'ec2'.padEnd(36, '0'),
        bootID: 'b'.padEnd(36, '0'),
      },
    },
  };
}

function podObject(node: number, k: number): Record<string, unknown> {
  return {
    metadata: {
      name: `pod-${node}-${k}`,
      namespace: k === 0 ? 'kube-system' : 'default',
      labels: { app: `app-${k}` },
    },
    spec: {
      nodeName: nodeName(node),
      containers: [
        {
          name: 'main',
          image: `registry.example.com/app-${k}:1.0`,
          resources: { requests: { cpu: '10m', memory: '32Mi' } },
        },
      ],
    },
    status: {
      phase: 'Running',
      podIP: `10.42.${node % 256}.${k + 2}`,
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [
        {
          name: 'main',
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
        },
      ],
    },
  };
}

/** CPU seconds used so far by the main thread (where the server runs), from /proc; NaN elsewhere. */
function serverThreadCpuSeconds(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round = (n: number, d = 1): number => Math.round(n * 10 ** d) / 10 ** d;

async function runScale(
  nodes: number,
  tls: boolean,
  phases: { list: boolean; get: boolean },
): Promise<Record<string, unknown>> {
  const server = await startKubeApiServer({ random: seededRandom(1), preloadRancherCrds: false, tls });
  const store = server.store;
  const seedStart = performance.now();
  for (let i = 0; i < nodes; i++) store.create('v1/nodes', nodeObject(i));
  for (let i = 0; i < nodes; i++) for (let k = 0; k < 4; k++) store.create('v1/pods', podObject(i, k));
  const seedMs = performance.now() - seedStart;
  const rssAfterSeed = process.memoryUsage().rss;
  const heapAfterSeed = process.memoryUsage().heapUsed;
  server.addIdentity(KCM);
  const admin = server.identities()[0]!;
  const client = startClient(server);
  const out: Record<string, unknown> = { nodes, pods: nodes * 4, tls, seedSeconds: round(seedMs / 1000, 2) };
  try {
    if (phases.list) {
      await client.call({ type: 'list', rounds: 1 });
      const cpu0 = serverThreadCpuSeconds();
      const list = await client.call<{ times: number[]; items: number }>({ type: 'list', rounds: 5 });
      const sorted = [...list.times].sort((a, b) => a - b);
      out.listAllNodesPagedBy500 = {
        wallMs: { median: round(percentile(sorted, 50)), min: round(sorted[0]!) },
        serverCpuMsPerList: round(((serverThreadCpuSeconds() - cpu0) * 1000) / list.times.length),
        items: list.items,
      };
    }
    if (phases.get) {
      const names = Array.from({ length: Math.min(nodes, 1000) }, (_, i) => nodeName(i));
      // The admin (system:masters) skips RBAC; the controller manager's identity goes through it.
      const singleGet: Record<string, unknown> = {};
      for (const [who, token] of [
        ['admin', admin.token],
        ['controllerManager', KCM.token],
      ] as const) {
        await client.call({ type: 'get', names, durationMs: 500, concurrency: 16, token });
        const cpu0 = serverThreadCpuSeconds();
        const gets = await client.call<{ requests: number; errors: number; seconds: number }>({
          type: 'get',
          names,
          durationMs: 3000,
          concurrency: 16,
          token,
        });
        const cpu = serverThreadCpuSeconds() - cpu0;
        singleGet[who] = {
          wallPerSecond: round(gets.requests / gets.seconds, 0),
          perServerCpuSecond: round(gets.requests / cpu, 0),
          serverCpuMsPerRequest: round((cpu * 1000) / gets.requests, 3),
          errors: gets.errors,
        };
      }
      out.singleGet = singleGet;
      const count = 300;
      await client.call({ type: 'fresh', name: names[0], count: 20, token: KCM.token });
      const cpu0 = serverThreadCpuSeconds();
      const fresh = await client.call<{ seconds: number; clientCpuSeconds: number; errors: number }>({
        type: 'fresh',
        name: names[0],
        count,
        token: KCM.token,
      });
      out.getOnNewConnectionEachTime = {
        wallMsPerRequest: round((fresh.seconds * 1000) / count, 2),
        serverCpuMsPerRequest: round(((serverThreadCpuSeconds() - cpu0) * 1000) / count, 3),
        clientCpuMsPerRequest: round((fresh.clientCpuSeconds * 1000) / count, 3),
        errors: fresh.errors,
      };
    }
    let peakRss = process.memoryUsage().rss;
    const watchFanOut: Record<string, unknown> = {};
    for (const place of ['worker-thread', 'child-process'] as const) {
      const clients = place === 'worker-thread' ? client : startClient(server, place);
      try {
        const figure = await watchLag(server, nodes, clients);
        peakRss = Math.max(peakRss, figure.peakRss);
        watchFanOut[place === 'worker-thread' ? 'clientsInServerProcess' : 'clientsInChildProcess'] =
          figure.out;
      } finally {
        if (clients !== client) await clients.close();
      }
    }
    out.watchFanOut = watchFanOut;
    out.memoryMiB = {
      rssAfterSeed: Math.round(rssAfterSeed / 2 ** 20),
      heapUsedAfterSeed: Math.round(heapAfterSeed / 2 ** 20),
      rssPeakWithClientsInProcess: Math.round(Math.max(peakRss, process.memoryUsage().rss) / 2 ** 20),
    };
    return out;
  } finally {
    await client.close();
    await server.close();
  }
}

/**
 * 100 watchers from one RV while node statuses are patched at 1,000/s for 4 s: each event carries its send
 * time, so every delivery gives a lag. Reports the server thread's and the client's CPU per update.
 */
async function watchLag(
  server: KubeApiServer,
  nodes: number,
  client: Client,
): Promise<{ out: Record<string, unknown>; peakRss: number }> {
  const watchers = 100;
  const rate = 1000;
  const seconds = 4;
  const expected = rate * seconds;
  let peakRss = process.memoryUsage().rss;
  const store = server.store;
  const sent = { n: 0, achievedPerSecond: 0, cpuSeconds: 0, wallSeconds: 0 };
  const result = await client.call<{ lags: number[]; perWatcher: number[]; clientCpuSeconds: number }>(
    { type: 'watch', count: watchers, rv: store.resourceVersion, expected },
    () => {
      void (async () => {
        const start = performance.now();
        const cpu0 = serverThreadCpuSeconds();
        while (sent.n < expected) {
          const due = Math.min(expected, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
          for (; sent.n < due; sent.n++) {
            const name = nodeName(sent.n % nodes);
            const at = performance.timeOrigin + performance.now();
            store.patch(
              'v1/nodes',
              undefined,
              name,
              'merge',
              {
                status: {
                  conditions: [
                    { type: 'Ready', status: 'True', reason: 'KubeletReady', message: `sent=${at}` },
                  ],
                },
              },
              { subresource: 'status' },
            );
          }
          peakRss = Math.max(peakRss, process.memoryUsage.rss());
          await new Promise((r) => setTimeout(r, 5));
        }
        sent.wallSeconds = (performance.now() - start) / 1000;
        sent.achievedPerSecond = round(expected / sent.wallSeconds);
        sent.cpuSeconds = serverThreadCpuSeconds() - cpu0;
      })();
    },
  );
  const lags = result.lags.sort((a, b) => a - b);
  const out = {
    watchers,
    updatesPerSecond: { target: rate, achieved: sent.achievedPerSecond },
    everyWatcherGotEveryUpdate: result.perWatcher.every((c) => c === expected),
    eventsDelivered: lags.length,
    lagMs: {
      p50: round(percentile(lags, 50)),
      p99: round(percentile(lags, 99)),
      max: round(lags[lags.length - 1] ?? NaN),
    },
    serverThreadBusyWhileUpdating: round(sent.cpuSeconds / sent.wallSeconds, 2),
    // Server-thread CPU per update (patch + fan-out to every watcher), and the core share 1,000/s would take.
    serverCpuMsPerUpdate: round((sent.cpuSeconds * 1000) / expected, 3),
    projectedCoreShareAtTargetRate: round((sent.cpuSeconds / expected) * rate, 2),
    // The one client thread decodes every watcher's stream: when it saturates, lag is the client's.
    clientCpuMsPerUpdate: round((result.clientCpuSeconds * 1000) / expected, 3),
    bytesPerEvent: Buffer.byteLength(JSON.stringify(store.get('v1/nodes', undefined, 'node-00000'))),
  };
  return { out, peakRss };
}

/** Runs one scale in a fresh process, so memory figures are not inflated by an earlier run. */
function inChild(nodes: number, tls: boolean): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
      env: { ...process.env, APISERVER_BENCH_CHILD: JSON.stringify({ nodes, tls }) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as Record<string, unknown>)
        : reject(new Error(`bench child exited ${code}`)),
    );
  });
}

/**
 * Microseconds per RBAC decision for the controller manager: on the bootstrap policy, and with 1,000 more
 * ClusterRoleBindings and 1,000 more RoleBindings in its namespace (other subjects), for a repeated request
 * and for a new object name each time.
 */
async function authorizeMicros(extraBindings: number): Promise<Record<string, number>> {
  const server = await startKubeApiServer({ tls: false, preloadRancherCrds: false });
  try {
    const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' };
    for (let i = 0; i < extraBindings; i++) {
      server.store.create('clusterrolebindings.rbac.authorization.k8s.io', {
        metadata: { name: `crb-${i}` },
        roleRef,
        subjects: [{ kind: 'User', name: `user-${i}` }],
      });
      server.store.create('rolebindings.rbac.authorization.k8s.io', {
        metadata: { name: `rb-${i}`, namespace: 'kube-system' },
        roleRef,
        subjects: [{ kind: 'ServiceAccount', name: `sa-${i}`, namespace: 'kube-system' }],
      });
    }
    const authorizer = new RbacAuthorizer(storeRbacSource(server.store));
    // One UserInfo per token, as the authenticator hands out.
    const user = userInfoOf(KCM);
    const ask = (name: string): RequestAttributes => ({
      user,
      verb: 'get',
      isResourceRequest: true,
      path: '',
      apiGroup: 'coordination.k8s.io',
      apiVersion: 'v1',
      resource: 'leases',
      subresource: '',
      namespace: 'kube-system',
      name,
    });
    // Bounded by time, not count: a full scan of 2,000 bindings takes about a millisecond.
    const time = (name: (i: number) => string): number => {
      const start = performance.now();
      let n = 0;
      while (n < 50_000 && performance.now() - start < 1000) {
        for (const end = n + 100; n < end; n++) authorizer.authorize(ask(name(n)));
      }
      return round(((performance.now() - start) * 1000) / n, 2);
    };
    time(() => 'kube-controller-manager');
    return {
      repeatedRequest: time(() => 'kube-controller-manager'),
      newNameEachTime: time((i) => `lease-${i}`),
    };
  } finally {
    await server.close();
  }
}

/**
 * The fan-out's own CPU per update, without sockets: 100 watchers on stub responses, node status patches
 * in turns of 5 (as the socket phase sends them), process CPU per patch (store write + matching, encoding
 * and queueing for every watcher), and how many writes the streams got per update.
 */
async function fanOutWithoutSockets(): Promise<Record<string, number>> {
  const server = await startKubeApiServer({ tls: false, preloadRancherCrds: false });
  const nodes = server.registry.resolve('v1/nodes');
  const hub = new WatchHub(server.store, server.registry, new RealClock(), 60_000);
  let writes = 0;
  const stub = {
    ...{
      writeHead: () => stub,
      flushHeaders: () => undefined,
      end: () => undefined,
      destroy: () => undefined,
    },
    ...{
      on: () => stub,
      cork: () => undefined,
      uncork: () => undefined,
      // Shared turns go to the socket as one pre-framed chunk; a stream's own lines through write().
      socket: { setNoDelay: () => undefined, write: () => ++writes > 0, destroyed: false, writableLength: 0 },
    },
    write: () => ++writes > 0,
    destroyed: false,
    writableLength: 0,
  };
  try {
    for (let i = 0; i < 500; i++) server.store.create('v1/nodes', nodeObject(i));
    for (let w = 0; w < 100; w++) {
      const request = {
        resourceType: nodes,
        namespace: '',
        labelSelector: parseLabelSelector(undefined),
        fieldSelector: parseFieldSelector(undefined, server.store.fieldGetters(nodes)),
        rendering: { kind: 'object' as const },
        allowBookmarks: false,
      };
      hub.open(request, { from: 'rv', rv: server.store.currentRevision }, stub as unknown as ServerResponse);
    }
    const updates = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i += 5) {
        for (let k = i; k < i + 5; k++) {
          const status = { conditions: [{ type: 'Ready', status: 'True', message: `sent=${k}` }] };
          server.store.patch(
            'v1/nodes',
            undefined,
            nodeName(k % 500),
            'merge',
            { status },
            { subresource: 'status' },
          );
        }
        await new Promise((r) => setImmediate(r));
      }
    };
    await updates(2000);
    writes = 0;
    const cpu0 = process.cpuUsage();
    await updates(10_000);
    const cpu = process.cpuUsage(cpu0);
    return {
      cpuMicrosecondsPerUpdate: round((cpu.user + cpu.system) / 10_000),
      writesPerUpdate: writes / 10_000,
    };
  } finally {
    hub.close();
    await server.close();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  const loadBefore = loadavg()[0];
  const results = {
    rbacDecisionMicroseconds: {
      bootstrapPolicy: await authorizeMicros(0),
      with2000MoreBindings: await authorizeMicros(1000),
    },
    watchFanOutWithoutSockets: await fanOutWithoutSockets(),
    '500 nodes': await inChild(500, true),
    '5000 nodes': await inChild(5000, true),
    '5000 nodes, plain http': await inChild(5000, false),
  };
  return {
    targets: { listAllNodesUnderMs: 300, getPerSecondAtLeast: 5000, watchP99UnderMs: 50, rssUnderMiB: 600 },
    machineLoadAverage: { before: round(loadBefore ?? NaN, 1), after: round(loadavg()[0] ?? NaN, 1) },
    ...results,
  };
}

if (process.env.APISERVER_BENCH_CHILD) {
  const { nodes, tls } = JSON.parse(process.env.APISERVER_BENCH_CHILD) as { nodes: number; tls: boolean };
  // APISERVER_BENCH_WATCH_ONLY=1 runs the watch phase alone (for `node --cpu-prof` of the server's share).
  const all = !process.env.APISERVER_BENCH_WATCH_ONLY;
  process.stdout.write(JSON.stringify(await runScale(nodes, tls, { list: all, get: all })));
  process.exit(0);
}
