import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import {
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  Observable,
  ResponseContext,
  wrapHttpLibrary,
  type Cluster,
  type RequestContext,
  type User,
} from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { closeKeepAliveAgents, makeKeepAliveApiClient } from './keep-alive-client.js';

/** What the HTTP layer was handed: no network here (the wire is covered in test/integration/apiserver). */
interface Sent {
  readonly url: string;
  readonly agent: HttpAgent | HttpsAgent | undefined;
  readonly headers: Record<string, string>;
}

function capture(): { sent: Sent[]; httpApi: ReturnType<typeof wrapHttpLibrary> } {
  const sent: Sent[] = [];
  const httpApi = wrapHttpLibrary({
    send: (ctx: RequestContext) => {
      sent.push({ url: ctx.getUrl(), agent: ctx.getAgent(), headers: { ...ctx.getHeaders() } });
      const text = JSON.stringify({ kind: 'NamespaceList', apiVersion: 'v1', metadata: {}, items: [] });
      return Promise.resolve(
        new ResponseContext(
          200,
          { 'content-type': 'application/json' },
          { text: () => Promise.resolve(text), binary: () => Promise.resolve(Buffer.from(text)) },
        ),
      );
    },
  });
  return { sent, httpApi };
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function kubeconfig(cluster: Partial<Cluster> = {}, user: Partial<User> = {}): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      { name: 'a', server: 'https://127.0.0.1:6443', caData: b64('CA-A'), skipTLSVerify: false, ...cluster },
      { name: 'b', server: 'https://127.0.0.1:7443', caData: b64('CA-B'), skipTLSVerify: false },
    ],
    users: [
      { name: 'u', token: 'secret-token', certData: b64('CERT'), keyData: b64('KEY'), ...user },
      { name: 'v', token: 'other-token' },
    ],
    contexts: [
      { name: 'ctx-a', cluster: 'a', user: 'u' },
      { name: 'ctx-b', cluster: 'b', user: 'v' },
    ],
    currentContext: 'ctx-a',
  });
  return kc;
}

const made: KubeConfig[] = [];
function track(kc: KubeConfig): KubeConfig {
  made.push(kc);
  return kc;
}
afterEach(() => {
  for (const kc of made.splice(0)) closeKeepAliveAgents(kc);
});

async function listTwice(kc: KubeConfig): Promise<Sent[]> {
  const { sent, httpApi } = capture();
  const core = makeKeepAliveApiClient(kc, CoreV1Api);
  const coordination = makeKeepAliveApiClient(kc, CoordinationV1Api);
  await core.listNamespace({}, { httpApi });
  await coordination.listNamespacedLease({ namespace: 'kube-system' }, { httpApi });
  await core.listNamespace({}, { httpApi });
  return sent;
}

describe('makeKeepAliveApiClient', () => {
  it('sends every request of every API class made from one kubeconfig through one keep-alive agent', async () => {
    const sent = await listTwice(track(kubeconfig()));
    expect(sent).toHaveLength(3);
    const agent = sent[0]!.agent;
    expect(agent).toBeInstanceOf(HttpsAgent);
    expect(sent.every((s) => s.agent === agent)).toBe(true);
    expect((agent as HttpsAgent).options.keepAlive).toBe(true);
    expect(sent[1]!.url).toBe(
      'https://127.0.0.1:6443/apis/coordination.k8s.io/v1/namespaces/kube-system/leases',
    );
  });

  it('carries the context CA and client certificate and leaves verification on', async () => {
    const [first] = await listTwice(track(kubeconfig()));
    const options = (first!.agent as HttpsAgent).options;
    expect(String(options.ca)).toBe('CA-A');
    expect(String(options.cert)).toBe('CERT');
    expect(String(options.key)).toBe('KEY');
    expect(options.rejectUnauthorized).not.toBe(false);
  });

  it('turns verification off only when the kubeconfig says insecure-skip-tls-verify, and passes tls-server-name', async () => {
    const [first] = await listTwice(
      track(kubeconfig({ skipTLSVerify: true, tlsServerName: 'api.internal' })),
    );
    const options = (first!.agent as HttpsAgent).options;
    expect(options.rejectUnauthorized).toBe(false);
    expect(options.servername).toBe('api.internal');
  });

  it('keeps the bearer token client-node adds', async () => {
    const sent = await listTwice(track(kubeconfig()));
    expect(sent.map((s) => s.headers.Authorization ?? s.headers.authorization)).toEqual([
      'Bearer secret-token',
      'Bearer secret-token',
      'Bearer secret-token',
    ]);
  });

  it('keeps one agent per kubeconfig and context', async () => {
    const kc = track(kubeconfig());
    const other = track(kubeconfig());
    const [a] = await listTwice(kc);
    const [b] = await listTwice(other);
    expect(b!.agent).not.toBe(a!.agent);

    kc.setCurrentContext('ctx-b');
    const { sent, httpApi } = capture();
    // A client made for ctx-a still targets ctx-a's server (as client-node's would) but authenticates as the
    // current context; its agent follows the current context too.
    await makeKeepAliveApiClient(kc, CoreV1Api).listNamespace({}, { httpApi });
    expect(sent[0]!.agent).not.toBe(a!.agent);
    expect(String((sent[0]!.agent as HttpsAgent).options.ca)).toBe('CA-B');
    expect(sent[0]!.headers.Authorization ?? sent[0]!.headers.authorization).toBe('Bearer other-token');

    kc.setCurrentContext('ctx-a');
    const [again] = await listTwice(kc);
    expect(again!.agent).toBe(a!.agent);
  });

  it('makes a new agent when the TLS material changes (a rotated client certificate)', async () => {
    const kc = track(kubeconfig());
    const [before] = await listTwice(kc);
    const user = kc.getCurrentUser() as { certData?: string };
    user.certData = b64('CERT-2');
    const [after] = await listTwice(kc);
    expect(after!.agent).not.toBe(before!.agent);
    expect(String((after!.agent as HttpsAgent).options.cert)).toBe('CERT-2');
  });

  it('uses a plain keep-alive http.Agent for an http server (allowed only with skip-verify)', async () => {
    const sent = await listTwice(track(kubeconfig({ server: 'http://127.0.0.1:8080', skipTLSVerify: true })));
    expect(sent[0]!.agent).toBeInstanceOf(HttpAgent);
    expect(sent[0]!.agent).not.toBeInstanceOf(HttpsAgent);
    expect(sent[2]!.agent).toBe(sent[0]!.agent);
  });

  it('still refuses an http server without skip-verify, as client-node does', async () => {
    const kc = track(kubeconfig({ server: 'http://127.0.0.1:8080' }));
    const { sent, httpApi } = capture();
    await expect(makeKeepAliveApiClient(kc, CoreV1Api).listNamespace({}, { httpApi })).rejects.toThrow(
      /HTTP protocol is not allowed/,
    );
    expect(sent).toHaveLength(0);
  });

  it("leaves client-node's proxy agent in place for a cluster behind a proxy", async () => {
    const sent = await listTwice(track(kubeconfig({ proxyUrl: 'http://127.0.0.1:3128' })));
    expect(sent[0]!.agent).toBeDefined();
    expect(sent[0]!.agent).not.toBe(sent[2]!.agent);
  });

  it('uses the agent the caller passes', async () => {
    const agent = new HttpsAgent({ keepAlive: true });
    const { sent, httpApi } = capture();
    await makeKeepAliveApiClient(track(kubeconfig()), CoreV1Api, { agent }).listNamespace({}, { httpApi });
    expect(sent[0]!.agent).toBe(agent);
    agent.destroy();
  });

  it('keeps the shared agent when a call appends its own middleware', async () => {
    const kc = track(kubeconfig());
    const [shared] = await listTwice(kc);
    const { sent, httpApi } = capture();
    // Per-call middleware is Observable-based, as kube-lease-lock's abort-signal middleware is.
    const marker = {
      pre: (c: RequestContext) => {
        c.setHeaderParam('X-Marker', '1');
        return new Observable(Promise.resolve(c));
      },
      post: (r: ResponseContext) => new Observable(Promise.resolve(r)),
    };
    await makeKeepAliveApiClient(kc, CoreV1Api).listNamespace(
      {},
      { httpApi, middleware: [marker], middlewareMergeStrategy: 'append' },
    );
    expect(sent[0]!.agent).toBe(shared!.agent);
    expect(sent[0]!.headers['X-Marker']).toBe('1');
  });

  it('closeKeepAliveAgents ends the shared agent; later requests get a new one', async () => {
    const kc = kubeconfig();
    const [before] = await listTwice(kc);
    const agent = before!.agent as HttpsAgent;
    let destroyed = false;
    const destroy = agent.destroy.bind(agent);
    agent.destroy = () => {
      destroyed = true;
      destroy();
    };
    closeKeepAliveAgents(kc);
    expect(destroyed).toBe(true);
    const [after] = await listTwice(track(kc));
    expect(after!.agent).not.toBe(agent);
  });

  it('fails like makeApiClient without a current cluster', () => {
    expect(() => makeKeepAliveApiClient(new KubeConfig(), CoreV1Api)).toThrow(/No active cluster/);
  });
});
