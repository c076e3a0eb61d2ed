import { UprootError } from 'uproot';

/** A `metav1.Status` as the real API server writes it. */
export interface KubeStatus {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Failure' | 'Success';
  readonly message?: string;
  readonly reason?: StatusReason;
  readonly details?: StatusDetails;
  readonly code: number;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

export interface StatusCause {
  readonly reason: string;
  readonly message: string;
  /** Omitted when empty, as metav1.StatusCause's omitempty (the eviction's DisruptionBudget cause). */
  readonly field?: string;
}

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Forbidden'
  | 'Unauthorized'
  | 'MethodNotAllowed'
  | 'Gone'
  | 'Expired'
  | 'UnsupportedMediaType'
  | 'NotAcceptable'
  | 'TooManyRequests'
  | 'RequestEntityTooLarge'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout';

/** A group and plural resource, printed like the API server does (`leases.coordination.k8s.io`, `nodes`). */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/**
 * An API answer that is not a success. The in-process store throws it too, so the twin's controllers see
 * the same reasons and codes as HTTP clients.
 */
export class ApiStatusError extends UprootError {
  readonly status: KubeStatus;
  /** Extra response headers (Retry-After). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: Omit<KubeStatus, 'kind' | 'apiVersion' | 'metadata' | 'status'>, headers = {}) {
    super(`UP-SANDBOX-KUBE-${(status.reason ?? 'Unknown').toUpperCase()}`, status.message ?? '', {
      source: 'environment',
    });
    this.name = 'ApiStatusError';
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...status };
    this.headers = headers;
  }

  /** The HTTP status code (`code` is uproot's stable error code). */
  get httpStatus(): number {
    return this.status.code;
  }

  get reason(): StatusReason | undefined {
    return this.status.reason;
  }

  static isStatusError(value: unknown): value is ApiStatusError {
    return value instanceof ApiStatusError;
  }
}

function details(gr: GroupResource, name: string): StatusDetails {
  return gr.group ? { name, group: gr.group, kind: gr.resource } : { name, kind: gr.resource };
}

export function notFound(gr: GroupResource, name: string): ApiStatusError {
  return new ApiStatusError({
    message: `${qualifiedResource(gr)} "${name}" not found`,
    reason: 'NotFound',
    details: details(gr, name),
    code: 404,
  });
}

export function alreadyExists(gr: GroupResource, name: string): ApiStatusError {
  return new ApiStatusError({
    message: `${qualifiedResource(gr)} "${name}" already exists`,
    reason: 'AlreadyExists',
    details: details(gr, name),
    code: 409,
  });
}

export const MODIFIED_MESSAGE =
  'the object has been modified; please apply your changes to the latest version and try again';

export function conflict(gr: GroupResource, name: string, why: string = MODIFIED_MESSAGE): ApiStatusError {
  return new ApiStatusError({
    message: `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`,
    reason: 'Conflict',
    details: details(gr, name),
    code: 409,
  });
}

/** 422, with the kind-qualified message the API server builds from field errors. */
export function invalid(
  kind: string,
  group: string,
  name: string,
  causes: readonly { field: string; message: string; type?: string }[],
): ApiStatusError {
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  // field.ErrorList.ToAggregate: one message per distinct error, bracketed when there are several.
  const lines = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const summary = lines.length === 1 ? lines[0]! : `[${lines.join(', ')}]`;
  return new ApiStatusError({
    message: `${qualifiedKind} "${name}" is invalid: ${summary}`,
    reason: 'Invalid',
    details: {
      ...(name ? { name } : {}),
      ...(group ? { group } : {}),
      ...(kind ? { kind } : {}),
      causes: causes.map((c) => ({
        reason: c.type ?? 'FieldValueInvalid',
        message: c.message,
        field: c.field,
      })),
    },
    code: 422,
  });
}

export function badRequest(message: string): ApiStatusError {
  return new ApiStatusError({ message, reason: 'BadRequest', code: 400 });
}

export function methodNotAllowed(): ApiStatusError {
  return new ApiStatusError({
    message: 'the server does not allow this method on the requested resource',
    reason: 'MethodNotAllowed',
    code: 405,
  });
}

export function unsupportedMediaType(accepted: readonly string[]): ApiStatusError {
  return new ApiStatusError({
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    reason: 'UnsupportedMediaType',
    code: 415,
  });
}

export function expired(message: string): ApiStatusError {
  return new ApiStatusError({ message, reason: 'Expired', code: 410 });
}

export function tooOldResourceVersion(requested: number, oldest: number): ApiStatusError {
  return expired(`too old resource version: ${requested} (${oldest})`);
}

/**
 * A minimum RV the store has not reached: apiserver pkg/storage/errors.go NewTooLargeResourceVersionError
 * (a 504 Timeout, retry after 1 s as the watch cache sets it).
 */
export function tooLargeResourceVersion(requested: number, current: number): ApiStatusError {
  return new ApiStatusError({
    message: `Timeout: Too large resource version: ${requested}, current: ${current}`,
    reason: 'Timeout',
    details: {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version', field: '' }],
      retryAfterSeconds: 1,
    },
    code: 504,
  });
}

export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export function unauthorized(): ApiStatusError {
  return new ApiStatusError({ message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
}

export function forbidden(gr: GroupResource | undefined, name: string, message: string): ApiStatusError {
  if (!gr || !gr.resource) {
    return new ApiStatusError({
      message: `forbidden: ${message}`,
      reason: 'Forbidden',
      details: {},
      code: 403,
    });
  }
  const prefix = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
  return new ApiStatusError({
    message: `${prefix} is forbidden: ${message}`,
    reason: 'Forbidden',
    details: details(gr, name),
    code: 403,
  });
}

export function tooManyRequests(retryAfterSeconds: number, message?: string): ApiStatusError {
  return new ApiStatusError(
    {
      message: message ?? 'Too many requests, please try again later.',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds },
      code: 429,
    },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

export function internalError(message: string): ApiStatusError {
  return new ApiStatusError({
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ reason: '', message, field: '' }] },
    code: 500,
  });
}

export function serviceUnavailable(
  message = 'the server is currently unable to handle the request',
): ApiStatusError {
  return new ApiStatusError({ message, reason: 'ServiceUnavailable', code: 503 });
}

export function timeoutError(): ApiStatusError {
  return new ApiStatusError({
    message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
    reason: 'Timeout',
    details: {},
    code: 504,
  });
}

export function requestTooLarge(limit: number): ApiStatusError {
  return new ApiStatusError({
    message: `the request body is too large: limit is ${limit} bytes`,
    reason: 'RequestEntityTooLarge',
    code: 413,
  });
}

export function successStatus(gr: GroupResource, name: string, uid?: string): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { ...details(gr, name), ...(uid ? { uid } : {}) },
  };
}
