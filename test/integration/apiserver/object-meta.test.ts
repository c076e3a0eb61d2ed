import { request, type RequestOptions } from 'node:https';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node, startSandbox, type Sandbox } from './harness.js';

/**
 * ObjectMeta validation (apimachinery objectmeta.go, meta/v1/validation, util/validation) and map keys
 * that name Object.prototype's properties, through real HTTP: kubectl, and client-node's kubeconfig for
 * raw requests (client-node's typed ObjectSerializer itself assigns `obj[key] = v` and would lose a
 * `__proto__` key before the wire, so the bodies here are JSON text).
 */

interface Answer {
  readonly code: number;
  readonly body: Record<string, unknown>;
}

const QUALIFIED_NAME_REGEX_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('ObjectMeta validation and keys as data, over HTTP', () => {
  let sb: Sandbox;

  async function call(method: string, path: string, body?: unknown, contentType = 'application/json') {
    const kc = sb.client();
    const server = new URL(kc.getCurrentCluster()!.server);
    const options: RequestOptions & { headers: Record<string, string> } = {
      method,
      hostname: server.hostname,
      port: server.port,
      path,
      headers: { 'content-type': contentType, accept: 'application/json' },
    };
    await kc.applyToHTTPSOptions(options);
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise<Answer>((resolve, reject) => {
      const req = request(options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            code: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          }),
        );
      });
      req.on('error', reject);
      req.end(text);
    });
  }

  const CM = '/api/v1/namespaces/default/configmaps';
  const CLUSTERS = '/apis/provisioning.cattle.io/v1/namespaces/fleet-default/clusters';

  beforeAll(async () => {
    sb = await startSandbox();
    sb.server.store.create('nodes', node('n1'));
    sb.server.store.create('namespaces', { metadata: { name: 'fleet-default' } });
  });

  afterAll(async () => {
    await sb.close();
  });

  describe('refused as the API server refuses them, nothing stored', () => {
    // kubectl label checks keys itself before sending; a patch reaches the server.
    it.each([['bad key'], ['_x'], ['a/b/c']])(
      'kubectl patch node n1 with the label key %j is a 422',
      async (key) => {
        const before = sb.server.store.get('nodes', undefined, 'n1')!.metadata!.resourceVersion;
        const out = await sb.kubectl([
          'patch',
          'node',
          'n1',
          '-p',
          JSON.stringify({ metadata: { labels: { [key]: 'v' } } }),
        ]);
        expect(out.code).not.toBe(0);
        expect(out.stderr).toContain('is invalid: metadata.labels: Invalid value');
        expect(sb.server.store.get('nodes', undefined, 'n1')!.metadata!.resourceVersion).toBe(before);
      },
    );

    it('a 64-character label value is a 422 with the length message', async () => {
      const value = 'a'.repeat(64);
      const out = await call(
        'PATCH',
        '/api/v1/nodes/n1',
        { metadata: { labels: { ok: value } } },
        'application/strategic-merge-patch+json',
      );
      expect(out.code).toBe(422);
      expect(out.body).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'Invalid',
        code: 422,
        details: {
          name: 'n1',
          kind: 'Node',
          causes: [
            {
              reason: 'FieldValueInvalid',
              field: 'metadata.labels',
              message: `Invalid value: "${value}": must be no more than 63 characters`,
            },
          ],
        },
      });
      expect(sb.server.store.get('nodes', undefined, 'n1')!.metadata!.labels).not.toHaveProperty('ok');
    });

    it("upstream's Status body for a bad label key, on every write path", async () => {
      const bad = { metadata: { name: 'v1', labels: { 'bad key': 'x' } }, data: {} };
      sb.server.store.create('configmaps', { metadata: { name: 'v1', namespace: 'default' }, data: {} });
      const stored = (): unknown => sb.server.store.get('configmaps', 'default', 'v1');
      const before = stored();
      const writes: [string, string, unknown, string?][] = [
        ['POST', CM, { ...bad, metadata: { ...bad.metadata, name: 'v2' } }],
        ['PUT', `${CM}/v1`, bad],
        [
          'PATCH',
          `${CM}/v1`,
          [{ op: 'add', path: '/metadata/labels', value: { 'bad key': 'x' } }],
          'application/json-patch+json',
        ],
        ['PATCH', `${CM}/v1`, bad, 'application/merge-patch+json'],
        ['PATCH', `${CM}/v1`, bad, 'application/strategic-merge-patch+json'],
        [
          'PATCH',
          `${CM}/v1?fieldManager=t`,
          { apiVersion: 'v1', kind: 'ConfigMap', ...bad },
          'application/apply-patch+yaml',
        ],
      ];
      for (const [method, path, body, type] of writes) {
        const out = await call(method, path, body, type);
        expect(out.code, `${method} ${type ?? ''}`).toBe(422);
        expect(out.body).toMatchObject({
          reason: 'Invalid',
          message: `ConfigMap "${method === 'POST' ? 'v2' : 'v1'}" is invalid: metadata.labels: Invalid value: "bad key": ${QUALIFIED_NAME_REGEX_MSG}`,
          details: {
            causes: [
              {
                reason: 'FieldValueInvalid',
                field: 'metadata.labels',
                message: `Invalid value: "bad key": ${QUALIFIED_NAME_REGEX_MSG}`,
              },
            ],
          },
        });
      }
      expect(stored()).toBe(before);
      expect(sb.server.store.get('configmaps', 'default', 'v2')).toBeUndefined();
    });

    it('annotations over 262144 bytes in total are Too long (kubectl patch --patch-file)', async () => {
      const file = join(sb.dir, 'big.json');
      writeFileSync(file, JSON.stringify({ metadata: { annotations: { big: 'x'.repeat(270_000) } } }));
      const out = await sb.kubectl(['patch', 'node', 'n1', '--type', 'merge', '--patch-file', file]);
      expect(out.code).not.toBe(0);
      expect(out.stderr).toContain('metadata.annotations: Too long: may not be more than 262144 bytes');
      expect(sb.server.store.get('nodes', undefined, 'n1')!.metadata!.annotations ?? {}).not.toHaveProperty(
        'big',
      );
    });

    it('names follow each kind: Service DNS-1035, Namespace DNS label, ConfigMap DNS subdomain, generateName', async () => {
      const svc = await call('POST', '/api/v1/namespaces/default/services', {
        metadata: { name: '1svc' },
        spec: { ports: [{ port: 80 }] },
      });
      expect(svc.code).toBe(422);
      expect((svc.body.details as { causes: unknown[] }).causes).toEqual([
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.name',
          message:
            "Invalid value: \"1svc\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        },
      ]);
      const ns = await call('POST', '/api/v1/namespaces', { metadata: { name: 'a.b' } });
      expect(ns.code).toBe(422);
      expect(ns.body.message).toBe(
        'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots',
      );
      expect((await call('POST', CM, { metadata: { name: 'a.b' } })).code).toBe(201);
      const gen = await call('POST', CM, { metadata: { generateName: 'Bad-' } });
      expect(gen.code).toBe(422);
      const fields = (gen.body.details as { causes: { field: string }[] }).causes.map((c) => c.field);
      expect(fields).toEqual(['metadata.generateName', 'metadata.name']);
    });
  });

  describe('__proto__, constructor and prototype are keys like any other', () => {
    it('kubectl patch --type merge {"data":{"__proto__":"x"}} stores the key', async () => {
      sb.server.store.create('configmaps', {
        metadata: { name: 'p', namespace: 'default' },
        data: { a: '1' },
      });
      const out = await sb.kubectl([
        'patch',
        'configmap',
        'p',
        '--type',
        'merge',
        '-p',
        '{"data":{"__proto__":"x"}}',
      ]);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain('patched');
      expect(out.stdout).not.toContain('no change');
      const got = await sb.kubectl(['get', 'configmap', 'p', '-o', 'json']);
      expect(JSON.parse(got.stdout)).toMatchObject({ data: { a: '1', ['__proto__']: 'x' } });
    });

    // ConfigMap keys (validation.go IsConfigMapKey), with the three names drawn often.
    const dataKey = fc.oneof(
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
      fc.stringMatching(/^[-._a-zA-Z0-9]{1,12}$/),
    );
    // Label keys: `__proto__` is not a qualified name (it starts with '_'), the other two are.
    const labelKey = fc.oneof(
      fc.constantFrom('constructor', 'prototype', 'valueOf'),
      fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/),
    );
    const dict = <T>(key: fc.Arbitrary<string>, value: fc.Arbitrary<T>) =>
      fc
        .uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, minLength: 1, maxLength: 5 })
        .map((pairs) => {
          const out: Record<string, T> = {};
          for (const [k, v] of pairs)
            Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
          return out;
        });
    const shape = fc.record({
      data: dict(dataKey, fc.string({ maxLength: 6 })),
      labels: dict(labelKey, fc.stringMatching(/^[a-z0-9]{0,6}$/)),
      annotations: dict(labelKey, fc.string({ maxLength: 6 })),
      spec: dict(dataKey, fc.oneof(fc.integer(), dict(dataKey, fc.boolean()))),
    });
    type Shape = typeof shape extends fc.Arbitrary<infer S> ? S : never;

    const pointer = (...tokens: string[]): string =>
      tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
    const configMap = (name: string, s: Shape) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, labels: s.labels, annotations: s.annotations },
      data: s.data,
    });
    const cluster = (name: string, s: Shape) => ({
      apiVersion: 'provisioning.cattle.io/v1',
      kind: 'Cluster',
      metadata: { name, labels: s.labels, annotations: s.annotations },
      spec: s.spec,
    });

    /** The keys stored at each map, read back over HTTP. */
    async function readBack(path: string): Promise<Record<string, unknown>> {
      const got = await call('GET', path);
      expect(got.code).toBe(200);
      return got.body;
    }

    function expectKeys(
      obj: Record<string, unknown>,
      mapPath: string[],
      expected: Record<string, unknown>,
      label: string,
    ): void {
      let node: unknown = obj;
      for (const p of mapPath)
        node = Object.hasOwn(node as object, p) ? (node as Record<string, unknown>)[p] : undefined;
      expectSubset(node, expected, `${label}: ${mapPath.join('.')}`);
    }

    /** Every key of `expected` is an own key of `actual` with the same value (maps may hold more keys). */
    function expectSubset(actual: unknown, expected: unknown, at: string): void {
      if (typeof expected !== 'object' || expected === null) {
        expect(actual, at).toEqual(expected);
        return;
      }
      for (const k of Object.keys(expected)) {
        expect(Object.hasOwn(actual as object, k), `${at}[${k}]`).toBe(true);
        expectSubset(
          (actual as Record<string, unknown>)[k],
          (expected as Record<string, unknown>)[k],
          `${at}[${k}]`,
        );
      }
    }

    const maps = (kind: 'cm' | 'cr', s: Shape): [string[], Record<string, unknown>][] => [
      [['metadata', 'labels'], s.labels],
      [['metadata', 'annotations'], s.annotations],
      kind === 'cm' ? [['data'], s.data] : [['spec'], s.spec],
    ];

    let n = 0;
    const SEED: Shape = {
      data: { seed: 's' },
      labels: { seed: 's' },
      annotations: { seed: 's' },
      spec: { seed: 1 },
    };
    it.each([
      ['ConfigMap', 'cm' as const, CM, configMap],
      ['custom resource', 'cr' as const, CLUSTERS, cluster],
    ])(
      '%s: POST, PUT, JSON patch, merge patch, strategic merge patch and apply keep every key',
      async (_, kind, base, make) => {
        // Each write starts from a fresh object that lacks the keys: an assignment to a key the object
        // already owns works even when the code is not prototype-safe.
        type Write = (url: string, name: string, s: Shape) => Promise<Answer>;
        const patch =
          (type: string, query = ''): Write =>
          (url, name, s) =>
            call('PATCH', `${url}${query}`, make(name, s), type);
        const writes: [string, Write][] = [
          [
            'PUT',
            async (url, name, s) => {
              const put = make(name, s) as { metadata: Record<string, unknown> };
              put.metadata.resourceVersion = (
                (await readBack(url)).metadata as Record<string, unknown>
              ).resourceVersion;
              return call('PUT', url, put);
            },
          ],
          [
            'json patch',
            (url, _name, s) =>
              call(
                'PATCH',
                url,
                maps(kind, s).flatMap(([path, m]) =>
                  Object.keys(m).map((k) => ({ op: 'add', path: pointer(...path, k), value: m[k] })),
                ),
                'application/json-patch+json',
              ),
          ],
          ['merge patch', patch('application/merge-patch+json')],
          ...(kind === 'cm'
            ? [['strategic merge patch', patch('application/strategic-merge-patch+json')] as [string, Write]]
            : []),
          ['apply', patch('application/apply-patch+yaml', '?fieldManager=prop&force=true')],
        ];
        await fc.assert(
          fc.asyncProperty(shape, async (s) => {
            const created = `k${n++}`;
            expect((await call('POST', base, make(created, s))).code).toBe(201);
            const expectStored = async (url: string, label: string): Promise<void> => {
              const stored = await readBack(url);
              for (const [path, expected] of maps(kind, s)) expectKeys(stored, path, expected, label);
            };
            await expectStored(`${base}/${created}`, 'POST');
            for (const [label, write] of writes) {
              const name = `k${n++}`;
              expect((await call('POST', base, make(name, SEED))).code).toBe(201);
              const answer = await write(`${base}/${name}`, name, s);
              expect(answer.code, `${label}: ${JSON.stringify(answer.body)}`).toBe(200);
              await expectStored(`${base}/${name}`, label);
            }
          }),
          { numRuns: 10, seed: 28 },
        );
      },
    );

    it('a __proto__ label key is refused as any other bad key, and the object keeps its labels', async () => {
      const out = await call(
        'PATCH',
        `${CM}/p`,
        '{"metadata":{"labels":{"__proto__":"x"}}}',
        'application/merge-patch+json',
      );
      expect(out.code).toBe(422);
      expect(out.body.message).toBe(
        `ConfigMap "p" is invalid: metadata.labels: Invalid value: "__proto__": ${QUALIFIED_NAME_REGEX_MSG}`,
      );
    });
  });
});
