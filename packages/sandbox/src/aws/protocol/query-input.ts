import { invalidParameterValue, missingParameter, type AwsApiError } from './aws-api-error.js';

/**
 * The parameters of one AWS Query request (`Action=…&Version=…&Filter.1.Name=…`), with typed access scoped to a
 * prefix. EC2 numbers list entries directly (`InstanceId.1`); the other query services add `member`
 * (`LoadBalancerNames.member.1`), chosen per call with `style`.
 */
export type ListStyle = 'ec2' | 'member';

export class QueryInput {
  private constructor(
    private readonly params: ReadonlyMap<string, string>,
    private readonly prefix: string,
  ) {}

  /** Parses a form-encoded body, merged over any URL query string (both are allowed by the protocol). */
  static parse(body: string, urlQuery = ''): QueryInput {
    const params = new Map<string, string>();
    for (const source of [urlQuery, body]) {
      if (!source) continue;
      for (const [key, value] of new URLSearchParams(source)) params.set(key, value);
    }
    return new QueryInput(params, '');
  }

  static fromRecord(record: Record<string, string>): QueryInput {
    return new QueryInput(new Map(Object.entries(record)), '');
  }

  has(name: string): boolean {
    const base = this.prefix + name;
    if (this.params.has(base)) return true;
    const dotted = base + '.';
    for (const key of this.params.keys()) if (key.startsWith(dotted)) return true;
    return false;
  }

  string(name: string): string | undefined {
    return this.params.get(this.prefix + name);
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined || value === '') throw missingParameter(this.prefix + name);
    return value;
  }

  int(name: string): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!/^-?\d+$/.test(raw)) {
      throw invalidParameterValue(`Invalid value '${raw}' for ${this.prefix + name}: expected an integer`);
    }
    return Number(raw);
  }

  bool(name: string): boolean | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw invalidParameterValue(`Invalid value '${raw}' for ${this.prefix + name}: expected true or false`);
  }

  /** The strings of a list, in index order. */
  list(name: string, style: ListStyle): string[] {
    const base = this.listBase(name, style);
    return this.indices(base, false).map((n) => this.params.get(`${base}.${n}`)!);
  }

  /** The structures of a list, each a scoped view. */
  structs(name: string, style: ListStyle): QueryInput[] {
    const base = this.listBase(name, style);
    return this.indices(base, true).map((n) => new QueryInput(this.params, `${base}.${n}.`));
  }

  /** A nested structure (`HealthCheck.Target`), or undefined when none of its members was sent. */
  struct(name: string): QueryInput | undefined {
    const scoped = new QueryInput(this.params, `${this.prefix}${name}.`);
    const dotted = `${this.prefix}${name}.`;
    for (const key of this.params.keys()) if (key.startsWith(dotted)) return scoped;
    return undefined;
  }

  /** Every parameter name under this view, for diagnostics. */
  keys(): string[] {
    return [...this.params.keys()]
      .filter((k) => k.startsWith(this.prefix))
      .map((k) => k.slice(this.prefix.length));
  }

  private listBase(name: string, style: ListStyle): string {
    return style === 'ec2' ? this.prefix + name : `${this.prefix}${name}.member`;
  }

  private indices(base: string, nested: boolean): number[] {
    const dotted = base + '.';
    const found = new Set<number>();
    for (const key of this.params.keys()) {
      if (!key.startsWith(dotted)) continue;
      const rest = key.slice(dotted.length);
      const dot = rest.indexOf('.');
      const head = dot === -1 ? rest : rest.slice(0, dot);
      if (nested !== (dot !== -1) || !/^\d+$/.test(head)) continue;
      found.add(Number(head));
    }
    return [...found].sort((a, b) => a - b);
  }
}

/** Reads a required integer, checking an inclusive range. */
export function intInRange(
  input: QueryInput,
  name: string,
  min: number,
  max: number,
  error: (value: number) => AwsApiError,
): number | undefined {
  const value = input.int(name);
  if (value !== undefined && (value < min || value > max)) throw error(value);
  return value;
}
