import { isJsonObject, jsonEqual, ownValue, setOwn, thaw } from '../kube-object.js';
import { ApiStatusError } from '../status/api-status-error.js';

/** An RFC 6902 failure: the API server answers 422 with the error text. */
function patchError(message: string): ApiStatusError {
  return new ApiStatusError({ message, reason: 'Invalid', details: {}, code: 422 });
}

function parsePointer(pointer: unknown): string[] {
  if (typeof pointer !== 'string') throw patchError('invalid JSON Patch: path must be a string');
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw patchError(`invalid JSON Patch: path "${pointer}" must start with /`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = Record<string, unknown> | unknown[];

/** Walks to the parent of the last token; throws when any step is missing (as evanphx/json-patch does). */
function parentOf(doc: unknown, tokens: string[], path: string): [Container, string] {
  let node = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[Number(t)];
    else if (isJsonObject(node)) node = ownValue(node, t);
    else node = undefined;
    if (node === undefined) throw patchError(`doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(node) && !isJsonObject(node))
    throw patchError(`doc is missing path: "${path}": missing value`);
  return [node, tokens[tokens.length - 1]!];
}

function arrayIndex(arr: unknown[], token: string, path: string, allowEnd: boolean): number {
  if (token === '-' && allowEnd) return arr.length;
  if (!/^\d+$/.test(token)) throw patchError(`Unable to access invalid index: ${token} (path "${path}")`);
  const i = Number(token);
  if (i > arr.length || (!allowEnd && i === arr.length)) {
    throw patchError(`Unable to access invalid index: ${i}: invalid index referenced (path "${path}")`);
  }
  return i;
}

function get(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return doc;
  const [parent, last] = parentOf(doc, tokens, path);
  const v = Array.isArray(parent) ? parent[arrayIndex(parent, last, path, false)] : ownValue(parent, last);
  if (v === undefined) throw patchError(`doc is missing path: "${path}": missing value`);
  return v;
}

function remove(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) throw patchError('invalid JSON Patch: cannot remove the document root');
  const [parent, last] = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, last, path, false), 1)[0];
  if (!Object.hasOwn(parent, last))
    throw patchError(`Unable to remove nonexistent key: ${last}: missing value`);
  const v = parent[last];
  delete parent[last];
  return v;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const [parent, last] = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, path, true), 0, value);
  else setOwn(parent, last, value);
  return doc;
}

/** Applies RFC 6902 operations to a mutable copy of `doc` and returns it. */
export function applyJsonPatch(doc: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw patchError('invalid JSON Patch: the patch must be a JSON array');
  let result = thaw(doc);
  for (const raw of operations) {
    if (!isJsonObject(raw)) throw patchError('invalid JSON Patch: each operation must be an object');
    const path = raw.path as string;
    switch (raw.op) {
      case 'add':
        result = add(result, path, thaw(raw.value));
        break;
      case 'remove':
        remove(result, path);
        break;
      case 'replace':
        get(result, path);
        if (parsePointer(path).length === 0) result = thaw(raw.value);
        else {
          remove(result, path);
          result = add(result, path, thaw(raw.value));
        }
        break;
      case 'move': {
        const v = remove(result, raw.from as string);
        result = add(result, path, v);
        break;
      }
      case 'copy':
        result = add(result, path, thaw(get(result, raw.from as string)));
        break;
      case 'test':
        if (!jsonEqual(get(result, path), raw.value))
          throw patchError(`testing value ${path} failed: test failed`);
        break;
      default:
        throw patchError(`Unexpected kind: ${String(raw.op)}`);
    }
  }
  return result;
}
