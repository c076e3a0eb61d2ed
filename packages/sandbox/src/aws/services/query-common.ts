import { AwsApiError } from '../protocol/aws-api-error.js';
import type { QueryInput } from '../protocol/query-input.js';
import { xmlFields, type XmlObject } from '../protocol/xml.js';
import type { TagMap } from '../state/ec2-types.js';

/** The content of an `<ActionResult>` from a plain object: member names as elements, lists as `<member>`. */
export function result(fields: XmlObject): string {
  return xmlFields(fields, 'member');
}

/** `Tags.member.N.Key|Value` into a record. */
export function readTags(input: QueryInput, name = 'Tags'): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const t of input.structs(name, 'member')) tags[t.requiredString('Key')] = t.string('Value') ?? '';
  return tags;
}

export function tagList(tags: TagMap): { Key: string; Value: string }[] {
  return [...tags].map(([Key, Value]) => ({ Key, Value }));
}

/** `PageSize` / `MaxItems` / `MaxRecords` within a service's bounds. */
export function pageSize(
  input: QueryInput,
  name: string,
  max: number,
  code = 'ValidationError',
): number | undefined {
  const value = input.int(name);
  if (value === undefined) return undefined;
  if (value < 1 || value > max) {
    throw new AwsApiError(
      code,
      `1 validation error detected: Value '${value}' at '${name.charAt(0).toLowerCase()}${name.slice(1)}' failed to satisfy constraint: Member must have value less than or equal to ${max}`,
    );
  }
  return value;
}

export const invalidMarker =
  (code = 'ValidationError'): (() => AwsApiError) =>
  () =>
    new AwsApiError(code, 'Invalid value for Marker: the pagination token is invalid or has expired');
