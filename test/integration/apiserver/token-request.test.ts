import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { ADMIN, KCM, node, startSandbox, type Sandbox } from './harness.js';

/**
 * TokenRequest and bound service account tokens (kubernetes pkg/registry/core/serviceaccount/storage/token.go,
 * pkg/serviceaccount/jwt.go): issued over HTTP to client-node, then used as bearer tokens.
 */

const KUBELET = {
  name: 'kubelet',
  token: 'kubelet-token',
  user: 'system:node:node-a',
  groups: ['system:nodes'],
};

function status(e: unknown): { code?: number; message?: string } {
  const err = e as { code?: number; body?: string };
  const body = typeof err.body === 'string' ? (JSON.parse(err.body) as { message?: string }) : {};
  return { code: err.code, message: body.message };
}

async function failure(p: Promise<unknown>): Promise<{ code?: number; message?: string }> {
  return p.then(
    () => ({ code: 200 }),
    (e: unknown) => status(e),
  );
}

describe('TokenRequest and bound service account tokens', () => {
  const clock = new VirtualClock();
  let sb: Sandbox;
  let admin: k8s.CoreV1Api;

  function as(token: string): k8s.CoreV1Api {
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: 'c',
          server: sb.server.url,
          caData: Buffer.from(sb.server.certificateAuthority!).toString('base64'),
        },
      ],
      users: [{ name: 'u', token }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    return kc.makeApiClient(k8s.CoreV1Api);
  }

  beforeAll(async () => {
    sb = await startSandbox({ clock, identities: [ADMIN, KCM, KUBELET] });
    admin = sb.client('admin').makeApiClient(k8s.CoreV1Api);
    sb.server.store.create('nodes', node('node-a'));
    sb.server.store.create('nodes', node('node-b'));
    await admin.createNamespacedServiceAccount({
      namespace: 'default',
      body: { metadata: { name: 'builder' } },
    });
  });

  afterAll(async () => {
    await sb.close();
  });

  it('issues a token that authenticates as the service account until it expires', async () => {
    const tr = await admin.createNamespacedServiceAccountToken({
      namespace: 'default',
      name: 'builder',
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    expect(tr.spec.audiences).toEqual(['https://kubernetes.default.svc.cluster.local']);
    expect(tr.status?.expirationTimestamp).toEqual(new Date(Math.floor(clock.now() / 1000) * 1000 + 600_000));
    const token = tr.status!.token;
    expect(token.split('.')).toHaveLength(3);
    // RBAC names the authenticated user in its refusal.
    expect(await failure(as(token).listNamespacedConfigMap({ namespace: 'default' }))).toEqual({
      code: 403,
      message:
        'configmaps is forbidden: User "system:serviceaccount:default:builder" cannot list resource "configmaps" in API group "" in the namespace "default"',
    });
    await clock.advanceBy(601_000);
    expect((await failure(as(token).listNamespacedConfigMap({ namespace: 'default' }))).code).toBe(401);
  });

  it('validates the request and refuses unknown accounts', async () => {
    expect(
      await failure(
        admin.createNamespacedServiceAccountToken({
          namespace: 'default',
          name: 'builder',
          body: { spec: { audiences: [], expirationSeconds: 60 } },
        }),
      ),
    ).toEqual({
      code: 422,
      message:
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    });
    expect(
      await failure(
        admin.createNamespacedServiceAccountToken({
          namespace: 'default',
          name: 'ghost',
          body: { spec: { audiences: [] } },
        }),
      ),
    ).toEqual({ code: 404, message: 'serviceaccounts "ghost" not found' });
  });

  it('ends a pod-bound token with its pod, and lets a kubelet bind tokens only to its own pods', async () => {
    const onA = await admin.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'on-a' },
        spec: { nodeName: 'node-a', serviceAccountName: 'builder', containers: [{ name: 'c', image: 'x' }] },
      },
    });
    const onB = await admin.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'on-b' },
        spec: { nodeName: 'node-b', serviceAccountName: 'builder', containers: [{ name: 'c', image: 'x' }] },
      },
    });
    const kubelet = as(KUBELET.token);
    const ref = (pod: k8s.V1Pod) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      name: pod.metadata!.name!,
      uid: pod.metadata!.uid!,
    });
    expect(
      await failure(
        kubelet.createNamespacedServiceAccountToken({
          namespace: 'default',
          name: 'builder',
          body: { spec: { audiences: [] } },
        }),
      ),
    ).toEqual({
      code: 403,
      message: 'serviceaccounts "builder" is forbidden: node requested token not bound to a pod',
    });
    expect(
      await failure(
        kubelet.createNamespacedServiceAccountToken({
          namespace: 'default',
          name: 'builder',
          body: { spec: { audiences: [], boundObjectRef: ref(onB) } },
        }),
      ),
    ).toEqual({
      code: 403,
      message:
        'serviceaccounts "builder" is forbidden: node requested token bound to a pod scheduled on a different node',
    });
    const tr = await kubelet.createNamespacedServiceAccountToken({
      namespace: 'default',
      name: 'builder',
      body: { spec: { audiences: [], boundObjectRef: ref(onA) } },
    });
    const claims = JSON.parse(Buffer.from(tr.status!.token.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims['kubernetes.io']).toMatchObject({
      namespace: 'default',
      serviceaccount: { name: 'builder' },
      pod: { name: 'on-a', uid: onA.metadata!.uid },
      node: { name: 'node-a' },
    });
    expect((await failure(as(tr.status!.token).listNamespacedConfigMap({ namespace: 'default' }))).code).toBe(
      403,
    );
    await admin.deleteNamespacedPod({ namespace: 'default', name: 'on-a' });
    expect((await failure(as(tr.status!.token).listNamespacedConfigMap({ namespace: 'default' }))).code).toBe(
      401,
    );
  });
});
