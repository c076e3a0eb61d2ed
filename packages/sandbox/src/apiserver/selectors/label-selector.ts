import { badRequest } from '../status/api-status-error.js';

export type LabelOperator = 'exists' | 'notexists' | 'equals' | 'notequals' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** A parsed label selector: requirements joined by AND. The empty selector matches everything. */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  readonly empty: boolean;
}

const NAME_RE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Checks a label key (`[prefix/]name`) like validation.IsQualifiedName; returns a reason or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !PREFIX_RE.test(prefix))) {
    return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  if (name.length === 0 || name.length > 63 || !NAME_RE.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  }
  return undefined;
}

export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!VALUE_RE.test(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  }
  return undefined;
}

type Token =
  { kind: 'id'; text: string } | { kind: 'op'; text: '=' | '==' | '!=' | '!' | '(' | ')' | ',' | '<' | '>' };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '=' && input[i + 1] === '=') {
      tokens.push({ kind: 'op', text: '==' });
      i += 2;
    } else if (c === '!' && input[i + 1] === '=') {
      tokens.push({ kind: 'op', text: '!=' });
      i += 2;
    } else if ('=!(),<>'.includes(c)) {
      tokens.push({ kind: 'op', text: c as '=' });
      i++;
    } else {
      let j = i;
      while (j < input.length && !' \t\n\r=!(),<>'.includes(input[j]!)) j++;
      tokens.push({ kind: 'id', text: input.slice(i, j) });
      i = j;
    }
  }
  return tokens;
}

function fail(detail: string): never {
  throw badRequest(`unable to parse requirement: ${detail}`);
}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private next(): Token | undefined {
    return this.tokens[this.pos++];
  }

  parse(): LabelRequirement[] {
    const out: LabelRequirement[] = [];
    if (this.tokens.length === 0) return out;
    for (;;) {
      out.push(this.requirement());
      const t = this.next();
      if (t === undefined) return out;
      if (t.kind !== 'op' || t.text !== ',') fail(`found '${t.text}', expected: ','`);
      if (this.peek() === undefined) fail("found '', expected: identifier after ','");
    }
  }

  private key(): string {
    const t = this.next();
    if (!t || t.kind !== 'id') fail(`found '${t?.text ?? ''}', expected: identifier`);
    const problem = labelKeyProblem(t.text);
    if (problem) fail(`<nil>: Invalid value: "${t.text}": ${problem}`);
    return t.text;
  }

  private value(key: string): string {
    const t = this.peek();
    if (!t || t.kind !== 'id') return '';
    this.pos++;
    const problem = labelValueProblem(t.text);
    if (problem) fail(`values[0][${key}]: Invalid value: "${t.text}": ${problem}`);
    return t.text;
  }

  private requirement(): LabelRequirement {
    const first = this.peek();
    if (first?.kind === 'op' && first.text === '!') {
      this.pos++;
      return { key: this.key(), operator: 'notexists', values: [] };
    }
    const key = this.key();
    const op = this.peek();
    if (op === undefined || (op.kind === 'op' && op.text === ','))
      return { key, operator: 'exists', values: [] };
    this.pos++;
    if (op.kind === 'id' && (op.text === 'in' || op.text === 'notin')) {
      return { key, operator: op.text, values: this.set(key) };
    }
    if (op.kind === 'op' && (op.text === '=' || op.text === '=='))
      return { key, operator: 'equals', values: [this.value(key)] };
    if (op.kind === 'op' && op.text === '!=')
      return { key, operator: 'notequals', values: [this.value(key)] };
    if (op.kind === 'op' && (op.text === '<' || op.text === '>')) {
      const v = this.value(key);
      if (!/^-?\d+$/.test(v)) fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
      return { key, operator: op.text === '<' ? 'lt' : 'gt', values: [v] };
    }
    return fail(`found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
  }

  private set(key: string): string[] {
    const open = this.next();
    if (!open || open.kind !== 'op' || open.text !== '(') fail(`found '${open?.text ?? ''}', expected: '('`);
    const values: string[] = [];
    for (;;) {
      values.push(this.value(key));
      const t = this.next();
      if (!t) fail("found '', expected: ',', ')'");
      if (t.kind === 'op' && t.text === ')') return values;
      if (t.kind !== 'op' || t.text !== ',') fail(`found '${t.text}', expected: ',', ')'`);
    }
  }
}

function matchRequirement(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'exists':
      return has;
    case 'notexists':
      return !has;
    case 'equals':
    case 'in':
      return has && r.values.includes(v!);
    case 'notequals':
    case 'notin':
      return !has || !r.values.includes(v!);
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(v!)) return false;
      const n = Number(v);
      const bound = Number(r.values[0]);
      return r.operator === 'gt' ? n > bound : n < bound;
    }
  }
}

export function selectorOf(requirements: readonly LabelRequirement[]): LabelSelector {
  return {
    requirements,
    empty: requirements.length === 0,
    matches(labels) {
      const l = labels ?? {};
      return requirements.every((r) => matchRequirement(r, l));
    },
  };
}

export const EVERYTHING: LabelSelector = selectorOf([]);

/** Parses the `labelSelector` query parameter; a malformed one is a 400 BadRequest, as upstream. */
export function parseLabelSelector(input: string | undefined): LabelSelector {
  if (input === undefined || input.trim() === '') return EVERYTHING;
  return selectorOf(new Parser(tokenize(input)).parse());
}

/** Converts a `metav1.LabelSelector` (matchLabels / matchExpressions), e.g. a DaemonSet's, to a selector. */
export function labelSelectorFromSpec(spec: {
  matchLabels?: Readonly<Record<string, string>>;
  matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] }[];
}): LabelSelector {
  const reqs: LabelRequirement[] = Object.entries(spec.matchLabels ?? {}).map(([key, v]) => ({
    key,
    operator: 'equals' as const,
    values: [v],
  }));
  for (const e of spec.matchExpressions ?? []) {
    const operator = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: 'notexists' } as const)[
      e.operator as 'In'
    ];
    if (!operator) throw badRequest(`"${e.operator}" is not a valid label selector operator`);
    reqs.push({ key: e.key, operator, values: e.values ?? [] });
  }
  return selectorOf(reqs);
}
