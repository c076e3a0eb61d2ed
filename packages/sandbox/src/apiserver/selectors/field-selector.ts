import type { KubeObject } from '../kube-object.js';
import type { FieldGetter } from '../registry/resource-type.js';
import { badRequest } from '../status/api-status-error.js';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** A parsed field selector, checked against the fields a kind supports. */
export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  matches(obj: KubeObject): boolean;
  /** The value a requirement pins `field` to (`spec.nodeName=x`), for index lookups. */
  equalityOn(field: string): string | undefined;
}

/** Splits on unescaped separators; `\,` `\=` `\\` are literal (fields.EscapeValue). */
function splitUnescaped(input: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (c === '\\' && i + 1 < input.length) {
      current += c + input[i + 1];
      i++;
    } else if (c === sep) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unescape(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\') {
      const n = value[i + 1];
      if (n === undefined || !'\\,='.includes(n))
        throw badRequest(`invalid field selector: invalid escape sequence: \\${n ?? ''}`);
      out += n;
      i++;
    } else if (c === ',' || c === '=') {
      throw badRequest(`invalid field selector: unescaped ${c} in value`);
    } else {
      out += c;
    }
  }
  return out;
}

function parseTerm(term: string): FieldRequirement {
  for (const [token, operator] of [
    ['!=', '!='],
    ['==', '='],
    ['=', '='],
  ] as const) {
    const at = term.indexOf(token);
    if (at > 0 || (at === 0 && token !== '=')) {
      return { field: term.slice(0, at).trim(), operator, value: unescape(term.slice(at + token.length)) };
    }
  }
  throw badRequest(`invalid selector: '${term}'; can't understand '${term}'`);
}

/**
 * Parses and checks the `fieldSelector` parameter. `getters` are the kind's field labels (plus
 * `metadata.name` and `metadata.namespace`); any other key is `field label not supported: X`, as upstream.
 */
export function parseFieldSelector(
  input: string | undefined,
  getters: Readonly<Record<string, FieldGetter>>,
  unsupported: (label: string) => string = (label) => `field label not supported: ${label}`,
): FieldSelector {
  const requirements: FieldRequirement[] = [];
  if (input !== undefined && input.trim() !== '') {
    for (const term of splitUnescaped(input, ',')) {
      if (term.trim() === '') continue;
      const req = parseTerm(term);
      if (!Object.prototype.hasOwnProperty.call(getters, req.field)) {
        throw badRequest(unsupported(req.field));
      }
      requirements.push(req);
    }
  }
  const checks = requirements.map((r) => ({ ...r, get: getters[r.field]! }));
  return {
    requirements,
    empty: requirements.length === 0,
    matches(obj) {
      for (const c of checks) {
        const equal = c.get(obj) === c.value;
        if (equal !== (c.operator === '=')) return false;
      }
      return true;
    },
    equalityOn(field) {
      return requirements.find((r) => r.field === field && r.operator === '=')?.value;
    },
  };
}
