import type { JsonObject } from '../kube-object.js';
import { badRequest, unsupportedMediaType } from '../status/api-status-error.js';

/**
 * Decodes the Kubernetes protobuf encoding (`application/vnd.kubernetes.protobuf`) for the few kinds typed
 * clients POST in protobuf: `kubectl auth can-i` (SelfSubjectAccessReview) and `kubectl create
 * namespace|configmap|secret|serviceaccount|role|rolebinding|clusterrole|clusterrolebinding|pdb` and the
 * Eviction `kubectl drain` posts. Field numbers
 * follow the upstream generated.proto files. Other kinds answer 415, as a server without their schema would.
 */

/** `intOrString`: apimachinery util/intstr IntOrString {1: type, 2: intVal, 3: strVal}, as JSON writes it. */
type Scalar = 'string' | 'bytes' | 'bool' | 'int' | 'time' | 'intOrString';

interface Field {
  readonly name: string;
  readonly type: Scalar | Schema;
  readonly repeated?: boolean;
  /** map<string, value>: entries are messages {1: key, 2: value}. */
  readonly map?: Scalar | Schema;
}

type Schema = { readonly [fieldNumber: number]: Field };

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const f = (name: string, type: Scalar | Schema, extra: Partial<Field> = {}): Field => ({
  name,
  type,
  ...extra,
});
const list = (name: string, type: Scalar | Schema): Field => ({ name, type, repeated: true });
const map = (name: string, value: Scalar | Schema): Field => ({ name, type: 'string', map: value });

const OWNER_REFERENCE: Schema = {
  1: f('kind', 'string'),
  3: f('name', 'string'),
  4: f('uid', 'string'),
  5: f('apiVersion', 'string'),
  6: f('controller', 'bool'),
  7: f('blockOwnerDeletion', 'bool'),
};

const OBJECT_META: Schema = {
  1: f('name', 'string'),
  2: f('generateName', 'string'),
  3: f('namespace', 'string'),
  5: f('uid', 'string'),
  6: f('resourceVersion', 'string'),
  7: f('generation', 'int'),
  8: f('creationTimestamp', 'time'),
  11: map('labels', 'string'),
  12: map('annotations', 'string'),
  13: list('ownerReferences', OWNER_REFERENCE),
  14: list('finalizers', 'string'),
};

const withMeta = (fields: Schema): Schema => ({ 1: f('metadata', OBJECT_META), ...fields });

const POLICY_RULE: Schema = {
  1: list('verbs', 'string'),
  2: list('apiGroups', 'string'),
  3: list('resources', 'string'),
  4: list('resourceNames', 'string'),
  5: list('nonResourceURLs', 'string'),
};
const SUBJECT: Schema = {
  1: f('kind', 'string'),
  2: f('apiGroup', 'string'),
  3: f('name', 'string'),
  4: f('namespace', 'string'),
};
const ROLE_REF: Schema = { 1: f('apiGroup', 'string'), 2: f('kind', 'string'), 3: f('name', 'string') };
const BINDING = withMeta({ 2: list('subjects', SUBJECT), 3: f('roleRef', ROLE_REF) });
const ROLE = withMeta({ 2: list('rules', POLICY_RULE) });

const RESOURCE_ATTRIBUTES: Schema = {
  1: f('namespace', 'string'),
  2: f('verb', 'string'),
  3: f('group', 'string'),
  4: f('version', 'string'),
  5: f('resource', 'string'),
  6: f('subresource', 'string'),
  7: f('name', 'string'),
};
const NON_RESOURCE_ATTRIBUTES: Schema = { 1: f('path', 'string'), 2: f('verb', 'string') };
const REVIEW_SPEC: Schema = {
  1: f('resourceAttributes', RESOURCE_ATTRIBUTES),
  2: f('nonResourceAttributes', NON_RESOURCE_ATTRIBUTES),
  3: f('user', 'string'),
  4: list('groups', 'string'),
  6: f('uid', 'string'),
};

const LABEL_SELECTOR: Schema = {
  1: map('matchLabels', 'string'),
  2: list('matchExpressions', {
    1: f('key', 'string'),
    2: f('operator', 'string'),
    3: list('values', 'string'),
  }),
};
/** k8s.io/api policy/v1 generated.proto PodDisruptionBudgetSpec. */
const PDB_SPEC: Schema = {
  1: f('minAvailable', 'intOrString'),
  2: f('selector', LABEL_SELECTOR),
  3: f('maxUnavailable', 'intOrString'),
  4: f('unhealthyPodEvictionPolicy', 'string'),
};
/** apimachinery meta/v1 generated.proto DeleteOptions. */
const DELETE_OPTIONS: Schema = {
  1: f('gracePeriodSeconds', 'int'),
  2: f('preconditions', { 1: f('uid', 'string'), 2: f('resourceVersion', 'string') }),
  3: f('orphanDependents', 'bool'),
  4: f('propagationPolicy', 'string'),
  5: list('dryRun', 'string'),
};
const EVICTION = withMeta({ 2: f('deleteOptions', DELETE_OPTIONS) });

const SCHEMAS: Readonly<Record<string, Schema>> = {
  'policy/v1/PodDisruptionBudget': withMeta({ 2: f('spec', PDB_SPEC) }),
  'policy/v1/Eviction': EVICTION,
  'policy/v1beta1/Eviction': EVICTION,
  'v1/Namespace': withMeta({ 2: f('spec', { 1: list('finalizers', 'string') }) }),
  'v1/ConfigMap': withMeta({
    2: map('data', 'string'),
    3: map('binaryData', 'bytes'),
    4: f('immutable', 'bool'),
  }),
  'v1/Secret': withMeta({
    2: map('data', 'bytes'),
    3: f('type', 'string'),
    4: map('stringData', 'string'),
    5: f('immutable', 'bool'),
  }),
  'v1/ServiceAccount': withMeta({
    3: list('imagePullSecrets', { 1: f('name', 'string') }),
    4: f('automountServiceAccountToken', 'bool'),
  }),
  'rbac.authorization.k8s.io/v1/Role': ROLE,
  'rbac.authorization.k8s.io/v1/ClusterRole': ROLE,
  'rbac.authorization.k8s.io/v1/RoleBinding': BINDING,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': BINDING,
  'authorization.k8s.io/v1/SelfSubjectAccessReview': withMeta({ 2: f('spec', REVIEW_SPEC) }),
  'authorization.k8s.io/v1/SubjectAccessReview': withMeta({ 2: f('spec', REVIEW_SPEC) }),
  'authorization.k8s.io/v1/LocalSubjectAccessReview': withMeta({ 2: f('spec', REVIEW_SPEC) }),
};

interface RawField {
  readonly no: number;
  readonly varint?: bigint;
  readonly bytes?: Buffer;
}

function readVarint(buf: Buffer, at: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (let i = at; i < buf.length; i++) {
    const b = buf[i]!;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, i + 1];
    shift += 7n;
  }
  throw badRequest('malformed protobuf body: truncated varint');
}

function* rawFields(buf: Buffer): Generator<RawField> {
  let at = 0;
  while (at < buf.length) {
    const [tag, next] = readVarint(buf, at);
    at = next;
    const no = Number(tag >> 3n);
    switch (Number(tag & 7n)) {
      case 0: {
        const [v, n] = readVarint(buf, at);
        at = n;
        yield { no, varint: v };
        break;
      }
      case 1:
        at += 8;
        break;
      case 2: {
        const [len, n] = readVarint(buf, at);
        const end = n + Number(len);
        if (end > buf.length) throw badRequest('malformed protobuf body: truncated field');
        yield { no, bytes: buf.subarray(n, end) };
        at = end;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw badRequest('malformed protobuf body: unsupported wire type');
    }
  }
}

function scalar(raw: RawField, type: Scalar | Schema): unknown {
  if (typeof type === 'object') return decodeMessage(raw.bytes ?? Buffer.alloc(0), type);
  switch (type) {
    case 'string':
      return (raw.bytes ?? Buffer.alloc(0)).toString('utf8');
    case 'bytes':
      return (raw.bytes ?? Buffer.alloc(0)).toString('base64');
    case 'bool':
      return raw.varint !== undefined && raw.varint !== 0n;
    case 'int':
      return Number(BigInt.asIntN(64, raw.varint ?? 0n));
    case 'intOrString': {
      const v = decodeMessage(raw.bytes ?? Buffer.alloc(0), {
        1: f('type', 'int'),
        2: f('intVal', 'int'),
        3: f('strVal', 'string'),
      });
      return v.type === 1 ? String(v.strVal ?? '') : Number(v.intVal ?? 0);
    }
    case 'time': {
      const t = decodeMessage(raw.bytes ?? Buffer.alloc(0), { 1: f('seconds', 'int') });
      const seconds = Number(t.seconds ?? 0);
      return seconds === 0 ? undefined : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
    }
  }
}

function decodeMessage(buf: Buffer, schema: Schema): JsonObject {
  const out: JsonObject = {};
  for (const raw of rawFields(buf)) {
    const field = schema[raw.no];
    if (!field) continue;
    if (field.map) {
      const entry = decodeMessage(raw.bytes ?? Buffer.alloc(0), {
        1: f('key', 'string'),
        2: f('value', field.map),
      });
      const target = (out[field.name] ??= {}) as JsonObject;
      target[String(entry.key ?? '')] =
        entry.value ?? (field.map === 'string' || field.map === 'bytes' ? '' : {});
    } else if (field.repeated) {
      ((out[field.name] ??= []) as unknown[]).push(scalar(raw, field.type));
    } else {
      const value = scalar(raw, field.type);
      // gogo-protobuf writes unset optional fields as zero values; JSON (omitempty) leaves them out.
      // An IntOrString is set when present, even at 0 (minAvailable: 0).
      if (value !== undefined && ((value !== '' && value !== 0) || field.type === 'intOrString'))
        out[field.name] = value;
    }
  }
  return out;
}

/** Decodes a protobuf request body into the JSON object it stands for. */
export function decodeProtobufObject(body: Buffer): JsonObject {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw badRequest('malformed protobuf body: missing the k8s envelope');
  }
  const unknown = decodeMessage(body.subarray(MAGIC.length), {
    1: f('typeMeta', { 1: f('apiVersion', 'string'), 2: f('kind', 'string') }),
    2: f('raw', 'bytes'),
  });
  const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const schema = SCHEMAS[`${typeMeta.apiVersion ?? ''}/${typeMeta.kind ?? ''}`];
  if (!schema) throw unsupportedMediaType(['application/json', 'application/yaml']);
  const obj = decodeMessage(Buffer.from(String(unknown.raw ?? ''), 'base64'), schema);
  return { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...obj };
}
