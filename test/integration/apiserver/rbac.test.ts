import { request } from 'node:https';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from './harness.js';

const FORBIDDEN =
  'leases.coordination.k8s.io "cloud-provider-extraction-migration" is forbidden: User "system:kube-controller-manager" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"';

const ROLE_PATCH =
  '{"rules": [ {"apiGroups":[ "coordination.k8s.io"], "resources": ["leases"], "resourceNames": ["cloud-provider-extraction-migration"], "verbs": ["create", "list", "get", "update"] } ]}';

describe('RBAC on the migration lease', () => {
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await startSandbox();
    sb.server.store.create('leases.coordination.k8s.io', {
      metadata: { name: 'cloud-provider-extraction-migration', namespace: 'kube-system' },
      spec: { holderIdentity: '' },
    });
  });

  afterAll(async () => {
    await sb.close();
  });

  async function review(): Promise<k8s.V1SubjectAccessReviewStatus | undefined> {
    const authz = sb.client().makeApiClient(k8s.AuthorizationV1Api);
    const sar = await authz.createSubjectAccessReview({
      body: {
        spec: {
          user: 'system:kube-controller-manager',
          resourceAttributes: {
            namespace: 'kube-system',
            verb: 'get',
            group: 'coordination.k8s.io',
            resource: 'leases',
            name: 'cloud-provider-extraction-migration',
          },
        },
      },
    });
    return sar.status;
  }

  it('denies the controller manager with the exact 403, then allows it after the documented role patch', async () => {
    const coord = sb.client('kcm').makeApiClient(k8s.CoordinationV1Api);
    try {
      await coord.readNamespacedLease({
        namespace: 'kube-system',
        name: 'cloud-provider-extraction-migration',
      });
      expect.unreachable();
    } catch (e) {
      const err = e as k8s.ApiException<string>;
      expect(err.code).toBe(403);
      expect(JSON.parse(err.body)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: FORBIDDEN,
        reason: 'Forbidden',
        details: {
          name: 'cloud-provider-extraction-migration',
          group: 'coordination.k8s.io',
          kind: 'leases',
        },
        code: 403,
      });
    }
    const viaKubectl = await sb.kubectl([
      '--context',
      'kcm',
      'get',
      'lease',
      '-n',
      'kube-system',
      'cloud-provider-extraction-migration',
    ]);
    expect(viaKubectl.code).not.toBe(0);
    expect(viaKubectl.stderr.trim()).toBe(`Error from server (Forbidden): ${FORBIDDEN}`);
    expect(await review()).toEqual({ allowed: false, reason: '' });
    const canI = [
      '--context',
      'kcm',
      'auth',
      'can-i',
      'get',
      'leases/cloud-provider-extraction-migration',
      '-n',
      'kube-system',
    ];
    expect((await sb.kubectl(canI)).stdout.trim()).toBe('no');

    const patched = await sb.kubectl([
      'patch',
      '-n',
      'kube-system',
      'role',
      'system::leader-locking-kube-controller-manager',
      '-p',
      ROLE_PATCH,
      '--type=merge',
    ]);
    expect(patched.code).toBe(0);

    const lease = await coord.readNamespacedLease({
      namespace: 'kube-system',
      name: 'cloud-provider-extraction-migration',
    });
    expect(lease.metadata?.name).toBe('cloud-provider-extraction-migration');
    const updated = await coord.replaceNamespacedLease({
      namespace: 'kube-system',
      name: 'cloud-provider-extraction-migration',
      body: { ...lease, spec: { holderIdentity: 'cp-1_kcm' } },
    });
    expect(updated.spec?.holderIdentity).toBe('cp-1_kcm');
    expect(await review()).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "system::leader-locking-kube-controller-manager/kube-system" of Role "system::leader-locking-kube-controller-manager" to User "system:kube-controller-manager"',
    });
    expect((await sb.kubectl(canI)).stdout.trim()).toBe('yes');
    const own = await sb.kubectl(['--context', 'kcm', 'get', 'lease', 'cloud-provider-extraction-migration']);
    expect(own.code).toBe(0);
  });

  it('still forbids what the role does not grant, at the cluster scope too', async () => {
    const core = sb.client('kcm').makeApiClient(k8s.CoreV1Api);
    try {
      await core.deleteNamespace({ name: 'default' });
      expect.unreachable();
    } catch (e) {
      const err = e as k8s.ApiException<string>;
      expect(err.code).toBe(403);
      expect(JSON.parse(err.body).message).toBe(
        'namespaces "default" is forbidden: User "system:kube-controller-manager" cannot delete resource "namespaces" in API group "" in the namespace "default"',
      );
    }
    const authz = sb.client('kcm').makeApiClient(k8s.AuthorizationV1Api);
    const self = await authz.createSelfSubjectAccessReview({
      body: { spec: { resourceAttributes: { verb: 'list', resource: 'nodes' } } },
    });
    expect(self.status?.allowed).toBe(true);
  });

  it('applies RBAC writes made over the API from the very next request', async () => {
    const kcmCore = sb.client('kcm').makeApiClient(k8s.CoreV1Api);
    const rbac = sb.client().makeApiClient(k8s.RbacAuthorizationV1Api);
    const configMap = (name: string): k8s.V1ConfigMap => ({ metadata: { name }, data: { k: 'v' } });
    const createAsKcm = (name: string): Promise<number> =>
      kcmCore.createNamespacedConfigMap({ namespace: 'default', body: configMap(name) }).then(
        () => 201,
        (e: unknown) => (e as k8s.ApiException<string>).code,
      );
    expect(await createAsKcm('before')).toBe(403);

    await rbac.createNamespacedRole({
      namespace: 'default',
      body: {
        metadata: { name: 'configmap-writer' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }],
      },
    });
    // The role alone grants nothing; the binding grants it on the next request.
    expect(await createAsKcm('role-only')).toBe(403);
    await rbac.createNamespacedRoleBinding({
      namespace: 'default',
      body: {
        metadata: { name: 'kcm-writes-configmaps' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-writer' },
        subjects: [
          { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:kube-controller-manager' },
        ],
      },
    });
    expect(await createAsKcm('bound')).toBe(201);

    await rbac.deleteNamespacedRole({ namespace: 'default', name: 'configmap-writer' });
    try {
      await kcmCore.createNamespacedConfigMap({ namespace: 'default', body: configMap('role-gone') });
      expect.unreachable();
    } catch (e) {
      const err = e as k8s.ApiException<string>;
      expect(err.code).toBe(403);
      expect(JSON.parse(err.body).message).toBe(
        'configmaps is forbidden: User "system:kube-controller-manager" cannot create resource "configmaps" in API group "" in the namespace "default": RBAC: role.rbac.authorization.k8s.io "configmap-writer" not found',
      );
    }
    await rbac.deleteNamespacedRoleBinding({ namespace: 'default', name: 'kcm-writes-configmaps' });
    expect(await createAsKcm('unbound')).toBe(403);
  });

  it('rejects unknown and missing tokens with 401, but serves /version and /healthz anonymously', async () => {
    const get = (path: string, token?: string): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const req = request(
          `${sb.server.url}${path}`,
          { ca: sb.server.certificateAuthority, headers: token ? { authorization: `Bearer ${token}` } : {} },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    for (const token of [undefined, 'wrong']) {
      const res = await get('/api/v1/nodes', token);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
    expect(await get('/healthz')).toEqual({ status: 200, body: 'ok' });
    expect(JSON.parse((await get('/version')).body)).toMatchObject({ major: '1', minor: '32' });
    const kc = sb.client();
    kc.users = kc.users.map((u) => ({ ...u, token: 'wrong' }));
    const err = await kc
      .makeApiClient(k8s.CoreV1Api)
      .listNode()
      .catch((e: unknown) => e as k8s.ApiException<string>);
    expect((err as k8s.ApiException<string>).code).toBe(401);
  });
});
