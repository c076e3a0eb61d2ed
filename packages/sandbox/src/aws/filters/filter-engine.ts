import type { AwsApiError } from '../protocol/aws-api-error.js';
import type { QueryInput } from '../protocol/query-input.js';
import { compileValueMatcher, type ValueMatcher } from './wildcard.js';

/** One `Filter.N` of a request: a name and the values any of which may match. */
export interface Filter {
  readonly name: string;
  readonly values: readonly string[];
}

/** Reads the compared value(s) of one filter name from a resource. */
export type FieldValues<T> = (item: T) => string | readonly string[] | undefined;

/** What a resource type can be filtered on. */
export interface FilterSchema<T> {
  readonly fields: Readonly<Record<string, FieldValues<T>>>;
  /** Tags, which enable `tag:KEY`, `tag-key` and `tag-value`. */
  readonly tags?: (item: T) => ReadonlyMap<string, string>;
}

/** `Filter.N.Name` / `Filter.N.Value.M` (EC2) or `Filters.member.N.Name` / `Values.member.M` (Auto Scaling). */
export function readFilters(input: QueryInput, style: 'ec2' | 'member'): Filter[] {
  if (style === 'ec2') {
    return input
      .structs('Filter', 'ec2')
      .map((f) => ({ name: f.string('Name') ?? '', values: f.list('Value', 'ec2') }));
  }
  return input
    .structs('Filters', 'member')
    .map((f) => ({ name: f.string('Name') ?? '', values: f.list('Values', 'member') }));
}

type Predicate<T> = (item: T) => boolean;

function anyMatches(values: string | readonly string[] | undefined, matcher: ValueMatcher): boolean {
  if (values === undefined) return false;
  if (typeof values === 'string') return matcher(values);
  for (const v of values) if (matcher(v)) return true;
  return false;
}

function compileOne<T>(
  filter: Filter,
  schema: FilterSchema<T>,
  unknown: (name: string) => AwsApiError,
): Predicate<T> {
  const matcher = compileValueMatcher(filter.values);
  const field = Object.hasOwn(schema.fields, filter.name) ? schema.fields[filter.name] : undefined;
  if (field) return (item) => anyMatches(field(item), matcher);
  const tags = schema.tags;
  if (tags) {
    if (filter.name.startsWith('tag:')) {
      const key = filter.name.slice(4);
      return (item) => {
        const value = tags(item).get(key);
        return value !== undefined && matcher(value);
      };
    }
    if (filter.name === 'tag-key') {
      return (item) => {
        for (const k of tags(item).keys()) if (matcher(k)) return true;
        return false;
      };
    }
    if (filter.name === 'tag-value') {
      return (item) => {
        for (const v of tags(item).values()) if (matcher(v)) return true;
        return false;
      };
    }
  }
  throw unknown(filter.name);
}

/**
 * One predicate for a list of filters: every filter must match (AND), and within a filter any value (OR), as
 * AWS documents. Unknown filter names fail the whole request, as on AWS.
 */
export function compileFilters<T>(
  filters: readonly Filter[],
  schema: FilterSchema<T>,
  unknown: (name: string) => AwsApiError,
): Predicate<T> {
  const predicates = filters.map((f) => compileOne(f, schema, unknown));
  if (predicates.length === 0) return () => true;
  if (predicates.length === 1) return predicates[0]!;
  return (item) => {
    for (const p of predicates) if (!p(item)) return false;
    return true;
  };
}
