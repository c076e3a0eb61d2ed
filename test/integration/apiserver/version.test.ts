import { request } from 'node:https';
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from './harness.js';

/** `/version` as each release shapes it, a version that changes under a running server, and `/openapi/v2`. */

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

function get(
  s: Sandbox,
  path: string,
  accept?: string,
): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${s.server.url}${path}`,
      {
        ca: s.server.certificateAuthority,
        headers: { authorization: 'Bearer admin-token', ...(accept ? { accept } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type']),
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('/version', () => {
  it('has no emulation fields before 1.33 (apimachinery version.Info until v0.32)', async () => {
    sb = await startSandbox({ version: { gitVersion: 'v1.26.15+rke2r1' } });
    const body = JSON.parse((await get(sb, '/version')).body.toString()) as Record<string, unknown>;
    expect(body).toMatchObject({ major: '1', minor: '26', gitVersion: 'v1.26.15+rke2r1' });
    expect(Object.keys(body)).not.toContain('emulationMajor');
    expect(Object.keys(body)).not.toContain('minCompatibilityMinor');
  });

  it('emulates itself and stays compatible with the previous minor from 1.33', async () => {
    sb = await startSandbox({ version: { gitVersion: 'v1.33.1' } });
    const info = await sb.client().makeApiClient(k8s.VersionApi).getCode();
    expect(info).toMatchObject({ major: '1', minor: '33', gitVersion: 'v1.33.1' });
    expect(JSON.parse((await get(sb, '/version')).body.toString())).toMatchObject({
      emulationMajor: '1',
      emulationMinor: '33',
      minCompatibilityMajor: '1',
      minCompatibilityMinor: '32',
    });
  });

  it('follows a version source on every request, and OpenAPI info with it', async () => {
    let gitVersion = 'v1.26.15';
    sb = await startSandbox({ version: () => ({ gitVersion }) });
    const s = sb;
    const infoVersion = async () =>
      (JSON.parse((await get(s, '/openapi/v3/api/v1')).body.toString()) as { info: { version: string } }).info
        .version;
    expect(await infoVersion()).toBe('v1.26.15');
    gitVersion = 'v1.27.16';
    expect(JSON.parse((await get(s, '/version')).body.toString())).toMatchObject({
      minor: '27',
      gitVersion: 'v1.27.16',
    });
    expect(s.server.version.minor).toBe('27');
    expect(await infoVersion()).toBe('v1.27.16');
  });
});

describe('/openapi/v2', () => {
  it('answers protobuf to client-go’s Accept, JSON to JSON, 406 otherwise', async () => {
    sb = await startSandbox({ version: { gitVersion: 'v1.27.16' } });
    const pb = await get(sb, '/openapi/v2', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf');
    expect(pb.status).toBe(200);
    expect(pb.type).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    // Document.swagger (field 1, length-delimited) "2.0", then Document.info.
    expect([...pb.body.subarray(0, 5)]).toEqual([0x0a, 3, 0x32, 0x2e, 0x30]);
    expect(pb.body.includes(Buffer.from('x-kubernetes-group-version-kind'))).toBe(true);
    expect(pb.body.includes(Buffer.from('group: ""\nkind: ConfigMap\nversion: v1\n'))).toBe(true);

    const json = await get(sb, '/openapi/v2', 'application/json');
    const doc = JSON.parse(json.body.toString()) as {
      swagger: string;
      info: { version: string };
      paths: Record<
        string,
        { patch?: { 'x-kubernetes-group-version-kind': unknown; parameters: unknown[] } }
      >;
    };
    expect(doc.swagger).toBe('2.0');
    expect(doc.info.version).toBe('v1.27.16');
    expect(doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']?.patch).toMatchObject({
      'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind: 'ConfigMap' },
      parameters: [{ name: 'fieldValidation', in: 'query' }],
    });
    expect((await get(sb, '/openapi/v2', 'text/html')).status).toBe(406);
  });
});
