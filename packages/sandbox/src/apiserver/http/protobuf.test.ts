import { describe, expect, it } from 'vitest';
import { decodeProtobufObject } from './protobuf.js';

// A minimal protobuf writer for building request bodies the way gogo-protobuf does.
function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}
const bytesField = (no: number, value: Buffer): Buffer =>
  Buffer.concat([varint((no << 3) | 2), varint(value.length), value]);
const str = (no: number, value: string): Buffer => bytesField(no, Buffer.from(value));
const msg = (no: number, ...parts: Buffer[]): Buffer => bytesField(no, Buffer.concat(parts));
const bool = (no: number, value: boolean): Buffer => Buffer.concat([varint(no << 3), varint(value ? 1 : 0)]);
const entry = (no: number, key: string, value: Buffer): Buffer => msg(no, str(1, key), bytesField(2, value));

function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from('k8s\0', 'latin1'),
    msg(1, str(1, apiVersion), str(2, kind)),
    bytesField(2, raw),
  ]);
}

describe('decodeProtobufObject', () => {
  it('decodes a SelfSubjectAccessReview as kubectl auth can-i sends it', () => {
    const raw = Buffer.concat([
      msg(1, str(1, ''), msg(8)),
      msg(
        2,
        msg(
          1,
          str(1, 'kube-system'),
          str(2, 'get'),
          str(3, 'coordination.k8s.io'),
          str(5, 'leases'),
          str(7, 'x'),
        ),
      ),
      msg(3, bool(1, false)),
    ]);
    expect(decodeProtobufObject(envelope('authorization.k8s.io/v1', 'SelfSubjectAccessReview', raw))).toEqual(
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        metadata: {},
        spec: {
          resourceAttributes: {
            namespace: 'kube-system',
            verb: 'get',
            group: 'coordination.k8s.io',
            resource: 'leases',
            name: 'x',
          },
        },
      },
    );
  });

  it('decodes maps, bytes and repeated fields', () => {
    const secret = Buffer.concat([
      msg(1, str(1, 's1'), str(3, 'foo'), entry(11, 'app', Buffer.from('web'))),
      entry(2, 'user', Buffer.from('admin')),
      str(3, 'Opaque'),
    ]);
    expect(decodeProtobufObject(envelope('v1', 'Secret', secret))).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's1', namespace: 'foo', labels: { app: 'web' } },
      data: { user: Buffer.from('admin').toString('base64') },
      type: 'Opaque',
    });
    const role = Buffer.concat([
      msg(1, str(1, 'r')),
      msg(2, str(1, 'get'), str(1, 'list'), str(2, ''), str(3, 'pods')),
    ]);
    expect(decodeProtobufObject(envelope('rbac.authorization.k8s.io/v1', 'Role', role)).rules).toEqual([
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
    ]);
  });

  it('answers 415 for kinds it has no schema for, and 400 for garbage', () => {
    expect(() => decodeProtobufObject(envelope('apps/v1', 'Deployment', Buffer.alloc(0)))).toThrow(
      /unknown format/,
    );
    expect(() => decodeProtobufObject(Buffer.from('not protobuf'))).toThrow(/missing the k8s envelope/);
  });
});
