import { describe, expect, it } from 'vitest';
import { ApiStatusError } from '../status/api-status-error.js';
import { isPrettyPrint, listParams, parseResourceVersion, queryBool } from './query-params.js';
import { parseRequestInfo } from './request-info.js';

const q = (s: string) => new URLSearchParams(s);

function statusOf(fn: () => unknown): { code: number; message: string | undefined } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiStatusError) return { code: e.status.code, message: e.status.message };
    throw e;
  }
  throw new Error('no error');
}

describe('query parameters as the API server decodes them', () => {
  it('reads booleans as runtime.Convert_Slice_string_To_bool: only absent, 0 and false (any case) are false', () => {
    for (const v of ['true', 'True', 'TRUE', '1', 't', 'yes', '', 'anything'])
      expect(queryBool(q(`watch=${v}`), 'watch')).toBe(true);
    for (const v of ['false', 'False', 'FALSE', 'fAlSe', '0'])
      expect(queryBool(q(`watch=${v}`), 'watch')).toBe(false);
    expect(queryBool(q(''), 'watch')).toBe(false);
    expect(queryBool(q('watch=false&watch=true'), 'watch')).toBe(false);
  });

  it('routes ?watch=True on a collection to a watch, and ignores watch on a named object', () => {
    expect(parseRequestInfo('GET', '/api/v1/pods', q('watch=True')).verb).toBe('watch');
    expect(parseRequestInfo('GET', '/api/v1/pods', q('watch=FALSE')).verb).toBe('list');
    expect(parseRequestInfo('GET', '/api/v1/namespaces/a/pods/x', q('watch=true')).verb).toBe('get');
  });

  it('answers unparsable integers with the strconv.ParseInt text as a 400', () => {
    expect(statusOf(() => listParams(q('limit=ten')))).toEqual({
      code: 400,
      message: 'strconv.ParseInt: parsing "ten": invalid syntax',
    });
    expect(statusOf(() => listParams(q('timeoutSeconds=99999999999999999999')))).toEqual({
      code: 400,
      message: 'strconv.ParseInt: parsing "99999999999999999999": value out of range',
    });
    expect(listParams(q('limit=%2B5&timeoutSeconds=-1'))).toMatchObject({ limit: 5, timeoutSeconds: -1 });
  });

  it('validates resourceVersionMatch as ValidateListOptions (422 on ListOptions.meta.k8s.io)', () => {
    expect(statusOf(() => listParams(q('resourceVersionMatch=Exact')))).toEqual({
      code: 422,
      message:
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    });
    expect(statusOf(() => listParams(q('resourceVersion=5&resourceVersionMatch=Newest'))).message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
    );
    expect(statusOf(() => listParams(q('watch=1&resourceVersionMatch=NotOlderThan'))).message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    );
    expect(statusOf(() => listParams(q('sendInitialEvents=true'))).message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    );
    expect(
      listParams(q('watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan')).sendInitialEvents,
    ).toBe(true);
  });

  it('parses resource versions as storage does', () => {
    expect(parseResourceVersion('')).toBe(0);
    expect(parseResourceVersion('42')).toBe(42);
    expect(statusOf(() => parseResourceVersion('x1')).message).toBe(
      'invalid resource version: resourceVersion: Invalid value: "x1": strconv.ParseUint: parsing "x1": invalid syntax',
    );
  });

  it('pretty-prints on a ParseBool true or for curl, Wget and browsers', () => {
    expect(isPrettyPrint(q('pretty=T'), undefined)).toBe(true);
    expect(isPrettyPrint(q('pretty=yes'), 'curl/8.0')).toBe(false);
    expect(isPrettyPrint(q(''), 'curl/8.0')).toBe(true);
    expect(isPrettyPrint(q(''), 'kubectl/v1.32.4')).toBe(false);
  });
});
