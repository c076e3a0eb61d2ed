// Sandbox API server figures at 500 and 5,000 nodes (4 pods per node): paged node lists, single-object GET
// throughput, watch fan-out lag and resident memory. The server runs on the main thread; clients run in a
// worker thread so the server keeps its core. Run: npx tsx bench/apiserver.bench.ts via `npx tsx bench/run.ts apiserver`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { startKubeApiServer, type KubeApiServer } from '../src/sandbox/apiserver/index.js';
import { seededRandom } from '../src/clock/index.js';

const CLIENT = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const https = require('node:https');
const http = require('node:http');
const { url, token, ca } = workerData;
const lib = url.startsWith('https') ? https : http;
const agent = new lib.Agent({ keepAlive: true, maxSockets: 256, ...(ca ? { ca } : {}) });
const headers = { authorization: 'Bearer ' + token, accept: 'application/json' };
const now = () => performance.timeOrigin + performance.now();
// Go clients (kubectl, controllers) set TCP_NODELAY; without it loopback round trips stall on Nagle.
const nodelay = (req) => req.on('socket', (s) => s.setNoDelay(true));

function get(path) {
  return new Promise((resolve, reject) => {
    const req = lib.request(url + path, { agent, headers }, (res) => {
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

async function getLoad(names, durationMs, concurrency) {
  let done = 0, errors = 0, i = 0;
  const end = performance.now() + durationMs;
  const start = performance.now();
  async function loop() {
    while (performance.now() < end) {
      const name = names[i++ % names.length];
      const res = await get('/api/v1/nodes/' + name);
      if (res.status === 200) done++; else errors++;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop));
  return { requests: done, errors, seconds: (performance.now() - start) / 1000 };
}

function watch(count, rv, expected) {
  return new Promise((resolveAll) => {
    const lags = new Float64Array(count * expected);
    let n = 0, ready = 0, finished = 0, last = performance.now();
    const perWatcher = new Array(count).fill(0);
    const reqs = [];
    const SENT = Buffer.from('sent=');
    const finish = () => {
      clearInterval(idle);
      for (const r of reqs) r.destroy();
      resolveAll({ lags: Array.from(lags.subarray(0, n)), perWatcher });
    };
    const idle = setInterval(() => { if (performance.now() - last > 10000) finish(); }, 1000);
    for (let w = 0; w < count; w++) {
      const req = lib.request(url + '/api/v1/nodes?watch=true&resourceVersion=' + rv, { agent, headers }, (res) => {
        if (++ready === count) parentPort.postMessage({ type: 'ready' });
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
  if (m.type === 'get') parentPort.postMessage({ type: 'result', value: await getLoad(m.names, m.durationMs, m.concurrency) });
  if (m.type === 'watch') parentPort.postMessage({ type: 'result', value: await watch(m.count, m.rv, m.expected) });
  if (m.type === 'exit') { agent.destroy(); process.exit(0); }
});
`;

interface Client {
  call<T>(message: Record<string, unknown>, onReady?: () => void): Promise<T>;
  close(): Promise<void>;
}

function startClient(server: KubeApiServer): Client {
  const admin = server.identities()[0]!;
  const worker = new Worker(CLIENT, {
    eval: true,
    workerData: { url: server.url, token: admin.token, ca: server.certificateAuthority },
  });
  return {
    call<T>(message: Record<string, unknown>, onReady?: () => void): Promise<T> {
      return new Promise((resolve, reject) => {
        const onMessage = (m: { type: string; value?: T }): void => {
          if (m.type === 'ready') onReady?.();
          if (m.type === 'result') {
            worker.off('message', onMessage);
            resolve(m.value as T);
          }
        };
        worker.on('message', onMessage);
        worker.once('error', reject);
        worker.postMessage(message);
      });
    },
    close: async () => {
      worker.postMessage({ type: 'exit' });
      await new Promise((r) => worker.once('exit', r));
    },
  };
}

function nodeObject(i: number): Record<string, unknown> {
  const name = `node-${String(i).padStart(5, '0')}`;
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
      nodeName: `node-${String(node).padStart(5, '0')}`,
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
      const names = Array.from(
        { length: Math.min(nodes, 1000) },
        (_, i) => `node-${String(i).padStart(5, '0')}`,
      );
      await client.call({ type: 'get', names, durationMs: 500, concurrency: 16 });
      const cpu0 = serverThreadCpuSeconds();
      const gets = await client.call<{ requests: number; errors: number; seconds: number }>({
        type: 'get',
        names,
        durationMs: 3000,
        concurrency: 16,
      });
      const cpu = serverThreadCpuSeconds() - cpu0;
      out.singleGet = {
        wallPerSecond: round(gets.requests / gets.seconds, 0),
        perServerCpuSecond: round(gets.requests / cpu, 0),
        errors: gets.errors,
      };
    }
    const watchers = 100;
    const rate = 1000;
    const seconds = 4;
    const expected = rate * seconds;
    let peakRss = process.memoryUsage().rss;
    const sent = { n: 0, achievedPerSecond: 0, cpu: 0, wall: 1 };
    const result = await client.call<{ lags: number[]; perWatcher: number[] }>(
      { type: 'watch', count: watchers, rv: store.resourceVersion, expected },
      () => {
        void (async () => {
          const start = performance.now();
          const cpu0 = serverThreadCpuSeconds();
          while (sent.n < expected) {
            const due = Math.min(expected, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
            for (; sent.n < due; sent.n++) {
              const name = `node-${String(sent.n % nodes).padStart(5, '0')}`;
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
            peakRss = Math.max(peakRss, process.memoryUsage().rss);
            await new Promise((r) => setTimeout(r, 5));
          }
          const wall = (performance.now() - start) / 1000;
          sent.achievedPerSecond = round(expected / wall);
          sent.cpu = (serverThreadCpuSeconds() - cpu0) / wall;
        })();
      },
    );
    const lags = result.lags.sort((a, b) => a - b);
    out.watchFanOut = {
      watchers,
      updatesPerSecond: { target: rate, achieved: sent.achievedPerSecond },
      everyWatcherGotEveryUpdate: result.perWatcher.every((c) => c === expected),
      eventsDelivered: lags.length,
      lagMs: {
        p50: round(percentile(lags, 50)),
        p99: round(percentile(lags, 99)),
        max: round(lags[lags.length - 1] ?? NaN),
      },
      serverThreadBusyWhileUpdating: round(sent.cpu / sent.wall, 2),
      // Server-thread CPU per update (patch + fan-out to every watcher), and the core share 1,000/s would take.
      serverCpuMsPerUpdate: round((sent.cpu * 1000) / expected, 3),
      projectedCoreShareAtTargetRate: round((sent.cpu / expected) * rate, 2),
      bytesPerEvent: Buffer.byteLength(JSON.stringify(store.get('v1/nodes', undefined, 'node-00000'))),
    };
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

export async function run(): Promise<Record<string, unknown>> {
  const loadBefore = loadavg()[0];
  const results = {
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
  process.stdout.write(JSON.stringify(await runScale(nodes, tls, { list: true, get: true })));
  process.exit(0);
}
