import { badRequest, invalid } from '../status/api-status-error.js';

/**
 * Query parameters decoded the way the API server's ParameterCodec does it (url.Values → metav1 options
 * through the generated conversions in apimachinery pkg/apis/meta/v1/zz_generated.conversion.go, with the
 * scalar rules of apimachinery pkg/runtime/conversion.go). Only the first value of a repeated parameter counts.
 */

/**
 * `Convert_Slice_string_To_bool`: absent, `0` and any case of `false` are false; every other value, `True`,
 * `yes` and the empty string included, is true. No value is an error (so `?watch=True` is a watch).
 */
export function queryBool(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  if (v === null) return false;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** `Convert_Slice_string_To_Pointer_bool`: like queryBool, but absent stays undefined. */
export function queryOptionalBool(query: URLSearchParams, name: string): boolean | undefined {
  return query.has(name) ? queryBool(query, name) : undefined;
}

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/**
 * `strconv.ParseInt(v, 10, 64)` as `Convert_Slice_string_To_int64` uses it; the Go error text is what the
 * handler returns as a 400 (`errors.NewBadRequest(err.Error())`, apiserver handlers/get.go listOpts).
 */
export function parseGoInt64(v: string): number {
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: invalid syntax`);
  const n = BigInt(v);
  if (n > INT64_MAX || n < INT64_MIN) {
    throw badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: value out of range`);
  }
  return Number(n);
}

function queryInt64(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  return v === null ? undefined : parseGoInt64(v);
}

/** Go's %q for the strings that reach these messages (quotes and backslashes escaped). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * `pretty` is read apart from the options (apiserver handlers/negotiation/negotiate.go isPrettyPrint):
 * strconv.ParseBool, an unparsable value meaning false; without it, curl, Wget and browsers get indented JSON.
 */
export function isPrettyPrint(query: URLSearchParams, userAgent: string | undefined): boolean {
  const pp = query.get('pretty');
  if (pp !== null && pp !== '') return PARSE_BOOL_TRUE.has(pp);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

/** The values strconv.ParseBool reads as true. */
const PARSE_BOOL_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/** metav1.ListOptions as list and watch handlers see it. */
export interface ListParams {
  readonly watch: boolean;
  readonly allowWatchBookmarks: boolean;
  /** Undefined when not given (it has no default of its own: see listParams). */
  readonly sendInitialEvents: boolean | undefined;
  readonly resourceVersion: string;
  readonly resourceVersionMatch: string;
  readonly timeoutSeconds: number | undefined;
  readonly limit: number;
  readonly continue: string;
  readonly labelSelector: string;
  readonly fieldSelector: string;
}

/** The ListOptions of a list or watch request, decoded and validated as apiserver handlers/get.go listOpts. */
export function listParams(query: URLSearchParams, forceWatch = false): ListParams {
  const decoded: ListParams = {
    watch: forceWatch || queryBool(query, 'watch'),
    allowWatchBookmarks: queryBool(query, 'allowWatchBookmarks'),
    sendInitialEvents: queryOptionalBool(query, 'sendInitialEvents'),
    resourceVersion: query.get('resourceVersion') ?? '',
    resourceVersionMatch: query.get('resourceVersionMatch') ?? '',
    timeoutSeconds: queryInt64(query, 'timeoutSeconds'),
    limit: queryInt64(query, 'limit') ?? 0,
    continue: query.get('continue') ?? '',
    labelSelector: query.get('labelSelector') ?? '',
    fieldSelector: query.get('fieldSelector') ?? '',
  };
  validateListParams(decoded);
  return decoded;
}

interface FieldProblem {
  readonly field: string;
  readonly message: string;
  readonly type: 'FieldValueForbidden' | 'FieldValueNotSupported';
}

const forbidden = (field: string, detail: string): FieldProblem => ({
  field,
  message: `Forbidden: ${detail}`,
  type: 'FieldValueForbidden',
});

const notSupported = (field: string, value: string, supported: readonly string[]): FieldProblem => ({
  field,
  message: `Unsupported value: ${goQuote(value)}: supported values: ${supported.map(goQuote).join(', ')}`,
  type: 'FieldValueNotSupported',
});

/**
 * apimachinery pkg/apis/meta/internalversion/validation/validation.go ValidateListOptions, with the WatchList
 * feature on (its default since 1.32): problems are a 422 on `ListOptions.meta.k8s.io ""`.
 */
function validateListParams(o: ListParams): void {
  const problems: FieldProblem[] = [];
  const match = o.resourceVersionMatch;
  if (o.watch) {
    if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      problems.push(
        forbidden(
          'resourceVersionMatch',
          'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        ),
      );
    }
    if (match !== '') {
      if (o.sendInitialEvents === undefined) {
        problems.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
          ),
        );
      }
      if (match !== 'NotOlderThan')
        problems.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (o.continue !== '') {
        problems.push(
          forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
        );
      }
    }
  } else {
    if (match !== '') {
      if (o.resourceVersion === '') {
        problems.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden unless resourceVersion is provided',
          ),
        );
      }
      if (o.continue !== '') {
        problems.push(
          forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
        );
      }
      if (match !== 'Exact' && match !== 'NotOlderThan') {
        problems.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
      }
      if (match === 'Exact' && o.resourceVersion === '0') {
        problems.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
          ),
        );
      }
    }
    if (o.sendInitialEvents !== undefined) {
      problems.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
    }
  }
  if (problems.length > 0) throw invalid('ListOptions', 'meta.k8s.io', '', problems);
}

/**
 * A resourceVersion as storage parses it (apiserver pkg/storage/api_object_versioner.go ParseResourceVersion,
 * wrapped by pkg/storage/interfaces.go ValidateListOptions): '' and '0' are 0, anything but an unsigned
 * integer is a 400.
 */
export function parseResourceVersion(rv: string): number {
  if (rv === '' || rv === '0') return 0;
  if (!/^\+?\d+$/.test(rv) || BigInt(rv) > 18446744073709551615n) {
    const why = /^\+?\d+$/.test(rv) ? 'value out of range' : 'invalid syntax';
    throw badRequest(
      `invalid resource version: resourceVersion: Invalid value: ${goQuote(rv)}: strconv.ParseUint: parsing ${goQuote(rv)}: ${why}`,
    );
  }
  return Number(rv);
}
