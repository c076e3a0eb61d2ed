import { connect, createServer, type Server, type Socket } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  closeKeepAliveAgents,
  makeKeepAliveApiClient,
} from '../../../packages/uproot/src/election/kube-http/index.js';
import type { Identity } from '../../../packages/sandbox/src/apiserver/index.js';
import { createServingCertificate } from '../../../packages/sandbox/src/apiserver/tls/self-signed-certificate.js';
import { ADMIN, KCM, startSandbox, type Sandbox } from './harness.js';

/** Authenticates (has a token) but holds no RBAC bindings. */
const NOBODY: Identity = { name: 'nobody', token: 'nobody-token', user: 'nobody' };

/**
 * A TCP relay in front of the API server: every connection a client opens to the server passes here, so the
 * count is what the server saw, independent of any client bookkeeping. TLS goes through untouched.
 */
interface Relay {
  readonly port: number;
  connections(): number;
  close(): Promise<void>;
}

async function startRelay(targetPort: number): Promise<Relay> {
  let count = 0;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    count++;
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('keep-alive client-node clients against the sandbox API server', () => {
  let sb: Sandbox;
  let relay: Relay;
  const kubeconfigs: k8s.KubeConfig[] = [];

  beforeAll(async () => {
    sb = await startSandbox({ identities: [ADMIN, KCM, NOBODY] });
    relay = await startRelay(sb.server.port);
    sb.server.store.create(
      'leases.coordination.k8s.io',
      { metadata: { name: 'probe', namespace: 'kube-system' }, spec: { holderIdentity: 'x' } },
      { namespace: 'kube-system' },
    );
  });

  afterEach(() => {
    for (const kc of kubeconfigs.splice(0)) closeKeepAliveAgents(kc);
  });

  afterAll(async () => {
    await relay.close();
    await sb.close();
  });

  /** A kubeconfig for the relay's address; the server certificate is valid for 127.0.0.1 either way. */
  function kubeconfig(user: k8s.User, ca: string = sb.server.certificateAuthority!): k8s.KubeConfig {
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: 'sandbox',
          server: `https://127.0.0.1:${relay.port}`,
          caData: Buffer.from(ca).toString('base64'),
          skipTLSVerify: false,
        },
      ],
      users: [user],
      contexts: [{ name: 'sandbox', cluster: 'sandbox', user: user.name }],
      currentContext: 'sandbox',
    });
    kubeconfigs.push(kc);
    return kc;
  }

  const tokenUser = (id: Identity): k8s.User => ({ name: id.name, token: id.token });

  /** `n` sequential calls alternating between a CoreV1Api and a CoordinationV1Api. */
  async function callBoth(
    core: k8s.CoreV1Api,
    coordination: k8s.CoordinationV1Api,
    n: number,
  ): Promise<string[]> {
    const seen: string[] = [];
    for (let i = 0; i < n; i++) {
      if (i % 2 === 0) seen.push((await core.readNamespace({ name: 'kube-system' })).metadata?.name ?? '');
      else
        seen.push(
          (await coordination.readNamespacedLease({ name: 'probe', namespace: 'kube-system' })).spec
            ?.holderIdentity ?? '',
        );
    }
    return seen;
  }

  it('sends 24 verified-TLS requests from two API classes over far fewer connections', async () => {
    const kc = kubeconfig(tokenUser(ADMIN));
    const before = relay.connections();
    const seen = await callBoth(
      makeKeepAliveApiClient(kc, k8s.CoreV1Api),
      makeKeepAliveApiClient(kc, k8s.CoordinationV1Api),
      24,
    );
    expect(seen).toEqual(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? 'kube-system' : 'x')));
    const used = relay.connections() - before;
    expect(used).toBeGreaterThanOrEqual(1);
    expect(used).toBeLessThanOrEqual(2);
  });

  it('opens one connection per request with plain makeApiClient (the relay counts what it should)', async () => {
    const kc = kubeconfig(tokenUser(ADMIN));
    const before = relay.connections();
    await callBoth(kc.makeApiClient(k8s.CoreV1Api), kc.makeApiClient(k8s.CoordinationV1Api), 6);
    expect(relay.connections() - before).toBe(6);
  });

  it('shares connections across concurrent requests once they are open', async () => {
    const kc = kubeconfig(tokenUser(ADMIN));
    const core = makeKeepAliveApiClient(kc, k8s.CoreV1Api);
    const before = relay.connections();
    for (let round = 0; round < 5; round++) {
      await Promise.all(Array.from({ length: 4 }, () => core.readNamespace({ name: 'default' })));
    }
    // At most one connection per request in flight at once, reused by every later round.
    expect(relay.connections() - before).toBeLessThanOrEqual(4);
  });

  it('keeps TLS verification on: a wrong CA fails the handshake', async () => {
    const wrongCa = createServingCertificate(Date.now()).caCertificate;
    const kc = kubeconfig(tokenUser(ADMIN), wrongCa);
    const core = makeKeepAliveApiClient(kc, k8s.CoreV1Api);
    const error = await core.readNamespace({ name: 'default' }).then(
      () => undefined,
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(error).toBeDefined();
    expect(error!.code).toMatch(
      /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|CERT_SIGNATURE_FAILURE)$/,
    );
    expect(error!.message).toMatch(/certificate|signature/i);
  });

  it('still sends the bearer token: RBAC denies an unbound user, allows the admin, rejects a bad token', async () => {
    const status = async (user: k8s.User): Promise<number> => {
      const api = makeKeepAliveApiClient(kubeconfig(user), k8s.CoordinationV1Api);
      try {
        for (let i = 0; i < 3; i++)
          await api.readNamespacedLease({ name: 'probe', namespace: 'kube-system' });
        return 200;
      } catch (e) {
        if (e instanceof k8s.ApiException) return (e as k8s.ApiException<unknown>).code;
        throw e;
      }
    };
    expect(await status(tokenUser(NOBODY))).toBe(403);
    expect(await status(tokenUser(ADMIN))).toBe(200);
    expect(await status({ name: 'forged', token: 'not-a-token' })).toBe(401);
  });

  it('applies exec credentials on the shared agent', async () => {
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: ADMIN.token },
    });
    const kc = kubeconfig({
      name: 'exec-admin',
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: process.execPath,
        args: ['-e', `process.stdout.write(${JSON.stringify(credential)})`],
        interactiveMode: 'Never',
      },
    } as k8s.User);
    const before = relay.connections();
    const core = makeKeepAliveApiClient(kc, k8s.CoreV1Api);
    for (let i = 0; i < 4; i++)
      expect((await core.readNamespace({ name: 'default' })).metadata?.name).toBe('default');
    expect(relay.connections() - before).toBe(1);
  });
});
