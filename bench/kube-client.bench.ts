// GET latency through client-node 1.4 against the sandbox API server over verified TLS: `makeApiClient` (a new
// https.Agent, so a new TCP + TLS connection, per call) versus `makeKeepAliveApiClient` (one shared keep-alive
// agent). Server and client share this process's event loop, so latency includes the server's own work; the
// figures compare the two clients, they do not measure the server. Run: `npx tsx bench/run.ts kube-client`.
import * as k8s from '@kubernetes/client-node';
import {
  closeKeepAliveAgents,
  makeKeepAliveApiClient,
} from '../packages/uproot/src/election/kube-http/index.js';
import { startKubeApiServer } from '../packages/sandbox/src/apiserver/index.js';

const GETS = 500;
const WARMUP = 25;
const ADMIN = { name: 'admin', token: 'bench-admin-token', user: 'admin', groups: ['system:masters'] };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function time(core: k8s.CoreV1Api): Promise<Record<string, number>> {
  for (let i = 0; i < WARMUP; i++) await core.readNamespace({ name: 'default' });
  const ms: number[] = [];
  const started = performance.now();
  for (let i = 0; i < GETS; i++) {
    const t = performance.now();
    await core.readNamespace({ name: 'default' });
    ms.push(performance.now() - t);
  }
  const total = performance.now() - started;
  ms.sort((a, b) => a - b);
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    gets: GETS,
    medianMs: round(percentile(ms, 50)),
    p99Ms: round(percentile(ms, 99)),
    meanMs: round(total / GETS),
    getsPerSecond: Math.round((GETS / total) * 1000),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const server = await startKubeApiServer({ identities: [ADMIN] });
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'sandbox',
        server: server.url,
        caData: Buffer.from(server.certificateAuthority ?? '').toString('base64'),
        skipTLSVerify: false,
      },
    ],
    users: [{ name: 'admin', token: ADMIN.token }],
    contexts: [{ name: 'sandbox', cluster: 'sandbox', user: 'admin' }],
    currentContext: 'sandbox',
  });
  try {
    const fresh = await time(kc.makeApiClient(k8s.CoreV1Api));
    const shared = await time(makeKeepAliveApiClient(kc, k8s.CoreV1Api));
    return {
      newConnectionPerGet: fresh,
      sharedKeepAliveAgent: shared,
      medianSpeedup: Math.round((fresh.medianMs! / shared.medianMs!) * 10) / 10,
    };
  } finally {
    closeKeepAliveAgents(kc);
    await server.close();
  }
}
