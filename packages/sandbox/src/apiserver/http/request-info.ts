import { parseGoInt64, queryBool } from './query-params.js';

/**
 * What a request is about, parsed from the URL the way the API server's RequestInfoFactory does it. Path
 * segments are split raw and then decoded, so names with colons (`system::leader-locking-…`) route as is.
 */
export interface RequestInfo {
  readonly path: string;
  readonly isResourceRequest: boolean;
  /** API verb for resource requests; the lower-case HTTP method otherwise. */
  readonly verb: string;
  readonly apiPrefix: 'api' | 'apis' | '';
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** Segments after the group/version (and namespace), e.g. `['pods', 'x', 'status']`. */
  readonly parts: readonly string[];
}

const METHOD_VERBS: Readonly<Record<string, string>> = {
  GET: 'get',
  HEAD: 'get',
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

function decode(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function nonResource(method: string, path: string): RequestInfo {
  return {
    path,
    isResourceRequest: false,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
}

/** Whether the ListOptions decode (an undecodable one loses its field selector, so no name is taken). */
function optionsDecode(query: URLSearchParams): boolean {
  for (const p of ['limit', 'timeoutSeconds']) {
    const v = query.get(p);
    if (v === null) continue;
    try {
      parseGoInt64(v);
    } catch {
      return false;
    }
  }
  return true;
}

/** Reads `metadata.name=x` out of a field selector (list/watch of one object is authorised by name). */
function exactName(fieldSelector: string | null): string {
  if (!fieldSelector) return '';
  for (const term of fieldSelector.split(',')) {
    const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
    if (m && m[1] && !m[1].includes('/') && !m[1].includes('%')) return m[1];
  }
  return '';
}

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const segments = path.split('/').filter((s) => s !== '');
  const prefix = segments[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResource(method, path);
  let rest = segments.slice(1).map(decode);
  let apiGroup = '';
  if (prefix === 'apis') {
    if (rest.length < 3) return nonResource(method, path);
    apiGroup = rest[0]!;
    rest = rest.slice(1);
  } else if (rest.length < 2) {
    return nonResource(method, path);
  }
  const apiVersion = rest[0]!;
  rest = rest.slice(1);
  let verb = METHOD_VERBS[method] ?? method.toLowerCase();
  if (rest[0] === 'watch') {
    verb = 'watch';
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      namespace = rest[1]!;
      if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
    }
  }
  const resource = rest[0] ?? '';
  let name = rest[1] ?? '';
  const subresource = rest[2] ?? '';
  // apiserver pkg/endpoints/request/requestinfo.go: without a name a GET is a watch when `watch` decodes as
  // true (runtime.Convert_Slice_string_To_bool: anything but 0/false), else a list. With a name it stays a
  // get: `?watch=` on an object's URL is ignored, as upstream.
  if (!name && verb === 'get') {
    verb = queryBool(query, 'watch') ? 'watch' : 'list';
    if (optionsDecode(query)) name = exactName(query.get('fieldSelector'));
  }
  if (!name && verb === 'delete') verb = 'deletecollection';
  return {
    path,
    isResourceRequest: true,
    verb,
    apiPrefix: prefix,
    apiGroup,
    apiVersion,
    namespace,
    resource,
    subresource,
    name,
    parts: rest,
  };
}
