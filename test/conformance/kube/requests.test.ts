import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { startHarness, type TwinHarness } from '../../integration/twin/support.js';
import {
  at,
  independentClient,
  nextEvent,
  type IndependentClient,
  type RawResponse,
} from './independent-client.js';

/**
 * The twin's Kubernetes API server as a client we did not write sees it: godaddy's kubernetes-client
 * (request backend) against every twin kind. Expected texts are the upstream ones (each rule's source is
 * cited beside the twin's code); where this client and the twin disagree, the twin is wrong.
 */

const TWINS = ['rke2-intree', 'rke-intree', 'kubeadm-intree'] as const;
const NS = 'conformance';

function names(body: unknown): string[] {
  const items = at(body, 'items');
  return Array.isArray(items) ? items.map((i) => String(at(i, 'metadata.name'))).sort() : [];
}

function warnings(r: RawResponse): string[] {
  const w = r.headers.warning;
  return w === undefined ? [] : Array.isArray(w) ? w : [w];
}

describe.each(TWINS)('kubernetes-client 9 against the %s twin', (scenario) => {
  let harness: TwinHarness;
  let client: IndependentClient;
  const cms = `/api/v1/namespaces/${NS}/configmaps`;
  const create = (name: string, extra: Record<string, unknown> = {}) =>
    client.raw({ method: 'POST', pathname: cms, body: { metadata: { name, ...extra }, data: { a: '1' } } });

  beforeAll(async () => {
    harness = await startHarness(scenario, new VirtualClock());
    client = independentClient(harness.twin.files.kubeconfig, harness.twin.contexts.downstream);
    const ns = await client.raw({
      method: 'POST',
      pathname: '/api/v1/namespaces',
      body: { metadata: { name: NS } },
    });
    expect(ns.statusCode).toBe(201);
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('watches from a list resourceVersion with watch=True (and lists with watch=False)', async () => {
    const list = await client.raw({ method: 'GET', pathname: cms });
    const rv = String(at(list.body, 'metadata.resourceVersion'));
    const stream = await client.watch({
      method: 'GET',
      pathname: cms,
      qs: { watch: 'True', resourceVersion: rv },
    });
    const event = nextEvent(stream, (e) => at(e.object, 'metadata.name') === 'watched');
    expect((await create('watched')).statusCode).toBe(201);
    expect((await event).type).toBe('ADDED');
    stream.destroy();

    const notAWatch = await client.raw({ method: 'GET', pathname: cms, qs: { watch: 'False' } });
    expect(at(notAWatch.body, 'kind')).toBe('ConfigMapList');
    expect(names(notAWatch.body)).toContain('watched');
  });

  it('pages with limit and continue, counting what is left only without selectors', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await create(`page-${i}`, { labels: { suite: 'paging', idx: String(i) } });
      expect(r.statusCode).toBe(201);
    }
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.raw({
        method: 'GET',
        pathname: cms,
        qs: { labelSelector: 'suite=paging', limit: 2, ...(token ? { continue: token } : {}) },
      });
      expect(page.statusCode).toBe(200);
      expect(at(page.body, 'metadata.remainingItemCount')).toBeUndefined();
      seen.push(...names(page.body));
      token = at(page.body, 'metadata.continue') as string | undefined;
    } while (token);
    expect(seen).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);

    const all = names((await client.raw({ method: 'GET', pathname: cms })).body);
    const first = await client.raw({ method: 'GET', pathname: cms, qs: { limit: 2 } });
    expect(at(first.body, 'metadata.remainingItemCount')).toBe(all.length - 2);

    const withRv = await client.raw({
      method: 'GET',
      pathname: cms,
      qs: { limit: 2, continue: String(at(first.body, 'metadata.continue')), resourceVersion: '1' },
    });
    expect(withRv.statusCode).toBe(400);
    expect(at(withRv.body, 'message')).toBe('specifying resource version is not allowed when using continue');
    const badToken = await client.raw({ method: 'GET', pathname: cms, qs: { continue: '!!' } });
    expect(badToken.statusCode).toBe(400);
    expect(String(at(badToken.body, 'message'))).toMatch(
      /^invalid continue token: continue key is not valid/,
    );
    const badLimit = await client.raw({ method: 'GET', pathname: cms, qs: { limit: 'ten' } });
    expect(badLimit.body).toMatchObject({
      code: 400,
      message: 'strconv.ParseInt: parsing "ten": invalid syntax',
    });
    const matchAlone = await client.raw({
      method: 'GET',
      pathname: cms,
      qs: { resourceVersionMatch: 'Exact' },
    });
    expect(matchAlone.body).toMatchObject({
      kind: 'Status',
      code: 422,
      reason: 'Invalid',
      message:
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    });
  });

  it('selects by label and by the fields each kind supports', async () => {
    const byLabel = await client.raw({
      method: 'GET',
      pathname: cms,
      qs: { labelSelector: 'suite=paging,idx in (1,3)' },
    });
    expect(names(byLabel.body)).toEqual(['page-1', 'page-3']);
    const byName = await client.raw({
      method: 'GET',
      pathname: cms,
      qs: { fieldSelector: 'metadata.name=page-2' },
    });
    expect(names(byName.body)).toEqual(['page-2']);
    const cmField = await client.raw({ method: 'GET', pathname: cms, qs: { fieldSelector: 'data.a=1' } });
    expect(cmField.body).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
    const nodeNs = await client.raw({
      method: 'GET',
      pathname: '/api/v1/nodes',
      qs: { fieldSelector: 'metadata.namespace=x' },
    });
    expect(at(nodeNs.body, 'message')).toBe('field label not supported: metadata.namespace');
    const nodes = names((await client.raw({ method: 'GET', pathname: '/api/v1/nodes' })).body);
    expect(nodes.length).toBeGreaterThan(1);
    const pods = await client.raw({
      method: 'GET',
      pathname: '/api/v1/pods',
      qs: { fieldSelector: `spec.nodeName=${nodes[0]}` },
    });
    const items = at(pods.body, 'items') as unknown[];
    expect(items.length).toBeGreaterThan(0);
    for (const p of items) expect(at(p, 'spec.nodeName')).toBe(nodes[0]);
  });

  it('answers 404, 409 and 422 with Status objects', async () => {
    const missing = await client.raw({ method: 'GET', pathname: `${cms}/missing` });
    expect(missing.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "missing" not found',
      reason: 'NotFound',
      details: { name: 'missing', kind: 'configmaps' },
      code: 404,
    });
    // The client's own error path sees the same code and message.
    const v1 = client.v1 as {
      namespaces(ns: string): { configmaps(name: string): { get(): Promise<unknown> } };
    };
    await expect(v1.namespaces(NS).configmaps('missing').get()).rejects.toMatchObject({
      statusCode: 404,
      message: 'configmaps "missing" not found',
    });
    const again = await create('page-0');
    expect(again.body).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'configmaps "page-0" already exists',
    });
    const stale = await client.raw({
      method: 'PUT',
      pathname: `${cms}/page-0`,
      body: { metadata: { name: 'page-0', resourceVersion: '1' }, data: { a: '2' } },
    });
    expect(stale.body).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on configmaps "page-0": the object has been modified; please apply your changes to the latest version and try again',
    });
    const badName = await create('Bad_Name');
    expect(badName.body).toMatchObject({
      code: 422,
      reason: 'Invalid',
      details: { name: 'Bad_Name', kind: 'ConfigMap' },
    });
    expect(at(badName.body, 'message')).toMatch(
      /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": /,
    );
  });

  it('patches with JSON, merge and strategic patches, and creates with server-side apply', async () => {
    const path = `${cms}/page-1`;
    const patch = (type: string, body: unknown, qs: Record<string, string> = {}) =>
      client.raw({ method: 'PATCH', pathname: path, body, qs, headers: { 'Content-Type': type } });
    const merge = await patch('application/merge-patch+json', { data: { b: '2' } });
    expect(at(merge.body, 'data')).toEqual({ a: '1', b: '2' });
    const json = await patch('application/json-patch+json', [{ op: 'replace', path: '/data/a', value: 'x' }]);
    expect(at(json.body, 'data')).toEqual({ a: 'x', b: '2' });
    const svc = await client.raw({
      method: 'POST',
      pathname: `/api/v1/namespaces/${NS}/services`,
      body: {
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] },
      },
    });
    expect(svc.statusCode).toBe(201);
    const smp = await client.raw({
      method: 'PATCH',
      pathname: `/api/v1/namespaces/${NS}/services/web`,
      body: { spec: { ports: [{ name: 'https', port: 443 }] } },
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    });
    expect((at(smp.body, 'spec.ports') as unknown[]).map((p) => at(p, 'port')).sort()).toEqual([443, 80]);

    const applyPath = `${cms}/applied`;
    const config = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  k: v\n';
    const apply = (qs: Record<string, string>) =>
      client.raw({
        method: 'PATCH',
        pathname: applyPath,
        body: config,
        qs,
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
    const noManager = await apply({});
    expect(noManager.body).toMatchObject({
      code: 422,
      message:
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    });
    const created = await apply({ fieldManager: 'conformance' });
    expect(created.statusCode).toBe(201);
    expect(at(created.body, 'data')).toEqual({ k: 'v' });
    expect((await apply({ fieldManager: 'conformance' })).statusCode).toBe(200);
    const unsupported = await patch('text/plain', 'x');
    expect(unsupported.statusCode).toBe(415);
  });

  it('keeps managedFields: apply owns its configuration, updates take fields over, conflicts need force', async () => {
    const path = `${cms}/applied`;
    const applied = await client.raw({ method: 'GET', pathname: path });
    expect(at(applied.body, 'metadata.managedFields')).toEqual([
      {
        manager: 'conformance',
        operation: 'Apply',
        apiVersion: 'v1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:k': {} } },
      },
    ]);
    const edited = await client.raw({
      method: 'PATCH',
      pathname: path,
      qs: { fieldManager: 'editor' },
      body: { data: { k: 'edited' } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    const entries = at(edited.body, 'metadata.managedFields') as { manager: string; fieldsV1: unknown }[];
    expect(entries.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['conformance', { 'f:data': { '.': {} } }],
      ['editor', { 'f:data': { 'f:k': {} } }],
    ]);
    const config = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  k: v2\n';
    const apply = (qs: Record<string, string>) =>
      client.raw({
        method: 'PATCH',
        pathname: path,
        body: config,
        qs,
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
    const conflict = await apply({ fieldManager: 'conformance' });
    expect(conflict.body).toMatchObject({
      code: 409,
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', field: '.data.k' }] },
    });
    expect(at(conflict.body, 'message')).toMatch(
      /^Apply failed with 1 conflict: conflict with "editor" using v1 at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: \.data\.k$/,
    );
    const forced = await apply({ fieldManager: 'conformance', force: 'true' });
    expect(forced.statusCode).toBe(200);
    expect(at(forced.body, 'data')).toEqual({ k: 'v2' });
  });

  it('writes status only through the status subresource', async () => {
    const svc = `/api/v1/namespaces/${NS}/services/web`;
    const ingress = { loadBalancer: { ingress: [{ hostname: 'lb.example' }] } };
    const main = await client.raw({
      method: 'PATCH',
      pathname: svc,
      body: { status: ingress },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(at(main.body, 'status.loadBalancer.ingress')).toBeUndefined();
    const status = await client.raw({
      method: 'PATCH',
      pathname: `${svc}/status`,
      body: { status: ingress, metadata: { labels: { ignored: 'yes' } } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(at(status.body, 'status.loadBalancer.ingress')).toEqual([{ hostname: 'lb.example' }]);
    expect(at(status.body, 'metadata.labels')).toBeUndefined();
  });

  it('runs dryRun=All writes through validation without persisting them', async () => {
    const dry = await client.raw({
      method: 'POST',
      pathname: cms,
      qs: { dryRun: 'All' },
      body: { metadata: { name: 'dry' } },
    });
    expect(dry.statusCode).toBe(201);
    expect(at(dry.body, 'metadata.uid')).toEqual(expect.any(String));
    expect((await client.raw({ method: 'GET', pathname: `${cms}/dry` })).statusCode).toBe(404);
    const bad = await client.raw({
      method: 'POST',
      pathname: cms,
      qs: { dryRun: 'Foo' },
      body: { metadata: { name: 'dry' } },
    });
    expect(bad.body).toMatchObject({
      code: 422,
      message:
        'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Foo"]: supported values: "All"',
    });
    const del = await client.raw({ method: 'DELETE', pathname: `${cms}/page-4`, qs: { dryRun: 'All' } });
    expect(del.statusCode).toBe(200);
    expect((await client.raw({ method: 'GET', pathname: `${cms}/page-4` })).statusCode).toBe(200);
  });

  it('validates fields strictly, with warnings, or not at all', async () => {
    const post = (name: string, fieldValidation: string) =>
      client.raw({
        method: 'POST',
        pathname: cms,
        qs: { fieldValidation },
        body: { metadata: { name }, data: { a: '1' }, bogus: true },
      });
    const strict = await post('strict', 'Strict');
    expect(strict.body).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
    });
    const duplicate = await client.raw({
      method: 'POST',
      pathname: cms,
      qs: { fieldValidation: 'Strict' },
      body: '{"metadata":{"name":"dup"},"data":{"a":"1"},"data":{"b":"2"}}',
    });
    expect(at(duplicate.body, 'message')).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"',
    );
    const warn = await post('warned', 'Warn');
    expect(warn.statusCode).toBe(201);
    expect(warnings(warn)).toEqual(['299 - "unknown field \\"bogus\\""']);
    expect(at(warn.body, 'bogus')).toBeUndefined();
    const ignore = await post('ignored', 'Ignore');
    expect(ignore.statusCode).toBe(201);
    expect(warnings(ignore)).toEqual([]);
    expect(at(ignore.body, 'bogus')).toBeUndefined();
    const unknownDirective = await post('x', 'Loose');
    expect(at(unknownDirective.body, 'message')).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"',
    );
    const strictPatch = await client.raw({
      method: 'PATCH',
      pathname: `${cms}/warned`,
      qs: { fieldValidation: 'Strict' },
      body: { bogus: 1 },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(strictPatch.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(at(strictPatch.body, 'message')).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "bogus"$/,
    );
  });

  it('negotiates YAML and refuses media types it does not serve', async () => {
    const yaml = await client.raw({
      method: 'GET',
      pathname: `${cms}/page-2`,
      headers: { Accept: 'application/yaml' },
    });
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(yaml.text).toMatch(/^apiVersion: v1\ndata:\n {2}a: "1"\nkind: ConfigMap\n/);
    const protobufOnly = await client.raw({
      method: 'GET',
      pathname: `${cms}/page-2`,
      headers: { Accept: 'application/vnd.kubernetes.protobuf' },
    });
    expect(protobufOnly.body).toMatchObject({
      code: 406,
      reason: 'NotAcceptable',
      message: 'only the following media types are accepted: application/json, application/yaml',
    });
    const fallback = await client.raw({
      method: 'GET',
      pathname: `${cms}/page-2`,
      headers: { Accept: 'application/vnd.kubernetes.protobuf, application/json' },
    });
    expect(at(fallback.body, 'kind')).toBe('ConfigMap');
    const pretty = await client.raw({ method: 'GET', pathname: `${cms}/page-2`, qs: { pretty: 'true' } });
    expect(pretty.text).toContain('\n  "kind": "ConfigMap"');
  });

  it('watches as Tables: column definitions with the first event only', async () => {
    const rv = String(
      at((await client.raw({ method: 'GET', pathname: cms })).body, 'metadata.resourceVersion'),
    );
    const stream = await client.watch({
      method: 'GET',
      pathname: cms,
      qs: { watch: '1', resourceVersion: rv },
      headers: { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
    });
    const first = nextEvent(stream, () => true);
    await create('table-1');
    const one = await first;
    const second = nextEvent(stream, () => true);
    await create('table-2');
    const two = await second;
    stream.destroy();
    expect(at(one.object, 'kind')).toBe('Table');
    expect((at(one.object, 'columnDefinitions') as unknown[]).length).toBeGreaterThan(0);
    expect(at(two.object, 'columnDefinitions')).toBeNull();
    expect(at(two.object, 'rows')).toEqual([
      expect.objectContaining({ cells: expect.arrayContaining(['table-2']) }),
    ]);
  });

  it('refuses the kubelet identity on another node, as kubectl cordon and this client see it', async () => {
    const twin = harness.twin;
    const self = twin.identities.node.user.slice('system:node:'.length);
    const nodes = names((await client.raw({ method: 'GET', pathname: '/api/v1/nodes' })).body);
    expect(nodes).toContain(self);
    const other = nodes.find((n) => n !== self)!;
    const cordon = await harness.kubectl(['--context', `${twin.scenario.clusterName}-node`, 'cordon', other]);
    expect(cordon.stderr).toContain(
      `nodes "${other}" is forbidden: node "${self}" is not allowed to modify node "${other}"`,
    );
    const asNode = independentClient(twin.files.kubeconfig, `${twin.scenario.clusterName}-node`);
    const patched = await asNode.raw({
      method: 'PATCH',
      pathname: `/api/v1/nodes/${other}`,
      body: { spec: { unschedulable: true } },
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    });
    expect(patched.body).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      details: { name: other, kind: 'nodes' },
      message: `nodes "${other}" is forbidden: node "${self}" is not allowed to modify node "${other}"`,
    });
  });
});
