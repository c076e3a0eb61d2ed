import { reviewAccess } from '../auth/access-review.js';
import {
  isJsonObject,
  jsonEqual,
  kubeTimestamp,
  toJson,
  type JsonObject,
  type KubeObject,
} from '../kube-object.js';
import { patchTypeFor, type PatchType } from '../patch/apply-patch.js';
import { apiVersionOf, type ResourceType } from '../registry/resource-type.js';
import { duplicateJsonFields, pruneUnknownFields, strictErrors } from '../schema/field-validation.js';
import { kindSchema } from '../schema/kind-schema.js';
import {
  conflictMessage,
  fieldPaths,
  removePath,
  updateManagedFields,
  type ManagedFieldsEntry,
} from '../schema/managed-fields.js';
import {
  ApiStatusError,
  badRequest,
  invalid,
  methodNotAllowed,
  successStatus,
} from '../status/api-status-error.js';
import type { Admit } from '../store/store-types.js';
import { decodeBody, readBody } from './body.js';
import { admission, outputOf, reply, type ApiRequest, type HandlerContext } from './resource-handlers.js';
import { handleScale } from './scale.js';
import { deleteDryRun, managerOrUserAgent, writeParams, type WriteParams } from './write-params.js';

/**
 * Create, update, patch and delete (apiserver pkg/endpoints/handlers/{create,update,patch,delete}.go): output
 * negotiation, then the body, then the options (422 on bad ones), then strict decoding, then the store with
 * admission.
 */

interface Input {
  readonly value: unknown;
  /** Keys repeated within one JSON object of the body (lost by JSON.parse). */
  readonly duplicates: readonly string[];
}

async function readInput(a: ApiRequest): Promise<Input> {
  const raw = await readBody(a.req);
  const value = decodeBody(raw, a.req.headers['content-type']);
  const media = (a.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const isJson = media === '' || media.endsWith('json');
  return { value, duplicates: isJson ? duplicateJsonFields(raw.toString('utf8')) : [] };
}

function checkApiVersion(rt: ResourceType, obj: unknown): void {
  if (!isJsonObject(obj)) throw badRequest('the request body must be a JSON object');
  const v = obj.apiVersion;
  if (typeof v === 'string' && v !== '' && v !== apiVersionOf(rt)) {
    throw badRequest(
      `the API version in the data (${v}) does not match the expected API version (${apiVersionOf(rt)})`,
    );
  }
  if (typeof obj.kind === 'string' && obj.kind !== '' && obj.kind !== rt.kind) {
    throw badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${rt.kind})`);
  }
}

type FieldCheck = (object: JsonObject, old: KubeObject | undefined) => void;

/**
 * Strict decoding of a create/update body: the typed decode drops unknown fields; Strict refuses them and
 * duplicates (create.go/update.go transformDecodeError), Warn turns each into a Warning header.
 */
function bodyCheck(a: ApiRequest, params: WriteParams, duplicates: readonly string[]): FieldCheck {
  return (object, old) => {
    const errors = strictErrors(pruneUnknownFields(object, kindSchema(a.rt), old), duplicates);
    if (errors.length === 0) return;
    if (params.fieldValidation === 'Strict') {
      const { kind, version } = a.rt;
      throw badRequest(
        `${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${errors.join(', ')}`,
      );
    }
    if (params.fieldValidation === 'Warn') a.warnings.push(...errors);
  };
}

/** The `%+v` of a decoded JSON value, as patch.go prints a strategic patch map in its 422. */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

/**
 * Strict decoding of a patched object (patch.go applyPatch / applyPatchToObject): a 422 on `""` whose
 * invalid value is the patched object (JSON and merge patches) or the patch map (strategic). Server-side
 * apply converts the configuration to its typed schema first, which refuses undeclared fields whatever the
 * directive (`failed to create typed patch object`).
 */
function patchCheck(a: ApiRequest, params: WriteParams, type: PatchType, input: Input): FieldCheck {
  return (object, old) => {
    const unknown = pruneUnknownFields(object, kindSchema(a.rt), old);
    if (type === 'apply') {
      if (unknown.length === 0) return;
      const gvk = `${apiVersionOf(a.rt).includes('/') ? apiVersionOf(a.rt) : `/${a.rt.version}`}, Kind=${a.rt.kind}`;
      const errs = unknown.map((f) => `.${f}: field not declared in schema`);
      throw badRequest(
        `failed to create typed patch object (${gvk}): ${errs.length === 1 ? errs[0] : `errors:\n  ${errs.join('\n  ')}`}`,
      );
    }
    const prefix = type === 'json' ? 'json patch ' : '';
    const errors = [
      ...strictErrors(unknown, []),
      ...strictErrors([], input.duplicates).map((e) => prefix + e),
    ];
    if (errors.length === 0) return;
    if (params.fieldValidation === 'Warn') a.warnings.push(...errors);
    if (params.fieldValidation !== 'Strict') return;
    const value = type === 'strategic' ? goValue(input.value) : JSON.stringify(object);
    throw invalid('', '', '', [
      {
        field: 'patch',
        message: `Invalid value: ${JSON.stringify(value)}: strict decoding error: ${errors.join(', ')}`,
      },
    ]);
  };
}

/**
 * Field checks first (they run as decoding does, before admission), then managedFields, then the
 * admission chain.
 */
function writeAdmission(
  ctx: HandlerContext,
  a: ApiRequest,
  check: FieldCheck,
  params: WriteParams,
  applied?: unknown,
): Admit {
  const admit = admission(ctx, a);
  return (change) => {
    if (change.object) {
      check(change.object, change.oldObject);
      trackManagedFields(ctx, a, params, change.object, change.oldObject, applied);
    }
    admit(change);
  };
}

/** Records who set what (managed-fields.ts); an Apply that would change others' fields is a 409. */
function trackManagedFields(
  ctx: HandlerContext,
  a: ApiRequest,
  params: WriteParams,
  object: JsonObject,
  old: KubeObject | undefined,
  applied: unknown,
): void {
  const { rt } = a;
  const schema = kindSchema(rt);
  const subresource = a.info.subresource || undefined;
  const options = { hasStatus: rt.subresources.includes('status'), ...(subresource ? { subresource } : {}) };
  const before = old ? fieldPaths(old, schema, rt.patchSchema, options) : new Map<string, string>();
  const after = fieldPaths(object, schema, rt.patchSchema, options);
  const previous = (old?.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
  const isApply = applied !== undefined;
  const { entries, conflicts, release } = updateManagedFields(previous, {
    manager: isApply
      ? params.fieldManager
      : managerOrUserAgent(params.fieldManager, a.req.headers['user-agent']),
    operation: isApply ? 'Apply' : 'Update',
    ...(subresource ? { subresource } : {}),
    apiVersion: apiVersionOf(rt),
    time: kubeTimestamp(ctx.clock.now()),
    before,
    after,
    ...(isApply
      ? { applied: fieldPaths(applied as KubeObject, schema, rt.patchSchema, options), force: params.force }
      : {}),
  });
  if (conflicts.length > 0) {
    const { message, causes } = conflictMessage(conflicts);
    throw new ApiStatusError({
      message,
      reason: 'Conflict',
      details: { causes: causes.map((c) => ({ reason: 'FieldManagerConflict', ...c })) },
      code: 409,
    });
  }
  for (const p of release) removePath(object, p);
  const meta = (isJsonObject(object.metadata) ? object.metadata : (object.metadata = {})) as JsonObject;
  // Like avoidNoopTimestampUpdates: a write that changes no ownership keeps the stored entries as they were.
  const unchanged =
    release.length === 0 &&
    jsonEqual(
      entries.map((e) => ({ ...e, time: '' })),
      previous.map((e) => ({ ...e, time: '' })),
    );
  if (unchanged && previous.length > 0) meta.managedFields = previous;
  else if (entries.length > 0) meta.managedFields = entries;
  else delete meta.managedFields;
}

export async function handleCreate(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  const output = outputOf(a);
  const input = await readInput(a);
  if (a.rt.virtual) {
    const review = reviewAccess(ctx.authorizer, a.rt.kind, input.value, a.user, a.info.namespace);
    reply(a, output, 201, JSON.stringify(review));
    return;
  }
  const params = writeParams(a.query, 'Create');
  checkApiVersion(a.rt, input.value);
  const created = ctx.store.create(a.rt, input.value as KubeObject, {
    namespace: a.info.namespace,
    dryRun: params.dryRun,
    admit: writeAdmission(ctx, a, bodyCheck(a, params, input.duplicates), params),
  });
  reply(a, output, 201, toJson(created));
}

export async function handleUpdate(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  if (a.info.subresource === 'scale')
    return handleScale(
      ctx,
      a,
      await readBody(a.req).then((b) => decodeBody(b, a.req.headers['content-type'])),
    );
  const output = outputOf(a);
  const input = await readInput(a);
  const params = writeParams(a.query, 'Update');
  checkApiVersion(a.rt, input.value);
  const updated = ctx.store.update(a.rt, input.value as KubeObject, {
    namespace: a.info.namespace,
    name: a.info.name,
    dryRun: params.dryRun,
    admit: writeAdmission(ctx, a, bodyCheck(a, params, input.duplicates), params),
    ...(a.info.subresource === 'status' ? { subresource: 'status' as const } : {}),
  });
  reply(a, output, 200, toJson(updated));
}

export async function handlePatch(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  const type = patchTypeFor(a.req.headers['content-type'], a.rt);
  const output = outputOf(a);
  const input = await readInput(a);
  if (a.info.subresource === 'scale') return handleScale(ctx, a, input.value, type);
  const params = writeParams(a.query, 'Patch', type);
  const exists = ctx.store.get(a.rt, a.info.namespace, a.info.name) !== undefined;
  if (type === 'apply' && !exists) ctx.authorize(a.info, a.user, 'create');
  const patched = ctx.store.patch(a.rt, a.info.namespace, a.info.name, type, input.value, {
    dryRun: params.dryRun,
    admit: writeAdmission(
      ctx,
      a,
      patchCheck(a, params, type, input),
      params,
      type === 'apply' ? input.value : undefined,
    ),
    ...(a.info.subresource === 'status' ? { subresource: 'status' as const } : {}),
  });
  reply(a, output, exists ? 200 : 201, toJson(patched));
}

interface DeleteBody {
  readonly preconditions?: { uid?: string; resourceVersion?: string };
  readonly dryRun?: string[];
}

async function deleteOptions(a: ApiRequest): Promise<DeleteBody> {
  const raw = await readBody(a.req);
  if (raw.length === 0 || raw.toString('utf8').trim() === '') return {};
  const parsed = decodeBody(raw, a.req.headers['content-type'] ?? 'application/json');
  return isJsonObject(parsed) ? (parsed as DeleteBody) : {};
}

export async function handleDelete(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  if (a.info.subresource) throw methodNotAllowed();
  const output = outputOf(a);
  const options = await deleteOptions(a);
  const result = ctx.store.delete(a.rt, a.info.namespace, a.info.name, {
    dryRun: deleteDryRun(a.query, options.dryRun),
    admit: admission(ctx, a),
    ...(options.preconditions ? { preconditions: options.preconditions } : {}),
  });
  // Like the generic registry: finished deletions of most kinds answer a Success Status, pending ones the object.
  const returnsObject = !result.removed || a.rt.resource === 'pods' || a.rt.resource === 'namespaces';
  const json = returnsObject
    ? toJson(result.object)
    : JSON.stringify(successStatus(a.rt, a.info.name, result.object.metadata?.uid));
  reply(a, output, 200, json);
}

export async function handleDeleteCollection(ctx: HandlerContext, a: ApiRequest): Promise<void> {
  const output = outputOf(a);
  const options = await deleteOptions(a);
  const deleted = ctx.store.deleteCollection(a.rt, {
    namespace: a.info.namespace,
    labelSelector: a.query.get('labelSelector') ?? undefined,
    fieldSelector: a.query.get('fieldSelector') ?? undefined,
    dryRun: deleteDryRun(a.query, options.dryRun),
    admit: admission(ctx, a),
  });
  reply(
    a,
    output,
    200,
    `{"kind":${JSON.stringify(a.rt.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(a.rt))},"metadata":{"resourceVersion":"${ctx.store.resourceVersion}"},"items":[${deleted.map(toJson).join(',')}]}`,
  );
}
