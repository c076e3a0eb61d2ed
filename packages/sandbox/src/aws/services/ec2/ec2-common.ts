import { AwsApiError } from '../../protocol/aws-api-error.js';
import type { QueryInput } from '../../protocol/query-input.js';
import { escapeXml } from '../../protocol/xml.js';
import type { Ec2Tags } from '../../state/ec2-types.js';

/** EC2's answer to an unknown filter name. */
export const invalidFilter = (name: string): AwsApiError =>
  new AwsApiError('InvalidParameterValue', `The filter '${name}' is invalid`);

export const invalidNextToken = (): AwsApiError =>
  new AwsApiError('InvalidParameterValue', 'The specified token is invalid or has expired');

/** `MaxResults` within EC2's usual 5..1000. */
export function maxResults(input: QueryInput, min = 5, max = 1000): number | undefined {
  const value = input.int('MaxResults');
  if (value === undefined) return undefined;
  if (value < min) {
    throw new AwsApiError(
      'InvalidParameterValue',
      `Value ( ${value} ) for parameter maxResults is invalid. Expecting a value greater than ${min}.`,
    );
  }
  if (value > max) {
    throw new AwsApiError(
      'InvalidParameterValue',
      `Value ( ${value} ) for parameter maxResults is invalid. Expecting a value less than ${max}.`,
    );
  }
  return value;
}

/** `<tagSet>` of a resource. */
export function tagSetXml(tags: Ec2Tags): string {
  if (tags.size === 0) return '<tagSet/>';
  let out = '<tagSet>';
  for (const [k, v] of tags) out += `<item><key>${escapeXml(k)}</key><value>${escapeXml(v)}</value></item>`;
  return out + '</tagSet>';
}

/** `TagSpecification.N.ResourceType` / `.Tag.M.Key|Value` entries for one resource type. */
export function tagSpecifications(input: QueryInput, resourceType: string): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const spec of input.structs('TagSpecification', 'ec2')) {
    if (spec.string('ResourceType') !== resourceType) continue;
    for (const tag of spec.structs('Tag', 'ec2')) tags[tag.requiredString('Key')] = tag.string('Value') ?? '';
  }
  return tags;
}

export function ec2Arn(region: string, accountId: string, type: string, id: string): string {
  return `arn:aws:ec2:${region}:${accountId}:${type}/${id}`;
}

/** Applies an id list (`SubnetId.N`) to a collection, failing with the service's NotFound for unknown ids. */
export function selectByIds<T extends { id: string }>(
  all: readonly T[],
  ids: readonly string[],
  notFound: (id: string) => AwsApiError,
): T[] {
  if (ids.length === 0) return [...all];
  const byId = new Map(all.map((item) => [item.id, item]));
  const missing = ids.find((id) => !byId.has(id));
  if (missing !== undefined) throw notFound(missing);
  const wanted = new Set(ids);
  return all.filter((item) => wanted.has(item.id));
}
