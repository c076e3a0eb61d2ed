import { describe, expect, it } from 'vitest';
import { AwsApiError } from '../protocol/aws-api-error.js';
import { QueryInput } from '../protocol/query-input.js';
import { compileFilters, readFilters, type FilterSchema } from './filter-engine.js';

interface Item {
  id: string;
  state: string;
  groups: string[];
  tags: Map<string, string>;
}

const items: Item[] = [
  {
    id: 'i-1',
    state: 'running',
    groups: ['sg-a'],
    tags: new Map([
      ['Name', 'cp-1'],
      ['kubernetes.io/cluster/demo', 'owned'],
    ]),
  },
  { id: 'i-2', state: 'stopped', groups: ['sg-a', 'sg-b'], tags: new Map([['Name', 'worker-1']]) },
  { id: 'i-3', state: 'running', groups: [], tags: new Map() },
];

const schema: FilterSchema<Item> = {
  tags: (i) => i.tags,
  fields: { 'instance-id': (i) => i.id, 'instance-state-name': (i) => i.state, 'group-id': (i) => i.groups },
};

const unknown = (name: string): AwsApiError =>
  new AwsApiError('InvalidParameterValue', `The filter '${name}' is invalid`);
const ids = (filters: { name: string; values: string[] }[]): string[] =>
  items.filter(compileFilters(filters, schema, unknown)).map((i) => i.id);

describe('compileFilters', () => {
  it('keeps everything without filters', () => {
    expect(ids([])).toEqual(['i-1', 'i-2', 'i-3']);
  });

  it('ANDs filters and ORs values within one', () => {
    expect(ids([{ name: 'instance-state-name', values: ['running'] }])).toEqual(['i-1', 'i-3']);
    expect(
      ids([
        { name: 'instance-id', values: ['i-1', 'i-2'] },
        { name: 'instance-state-name', values: ['running'] },
      ]),
    ).toEqual(['i-1']);
  });

  it('matches multi-valued fields when any value matches', () => {
    expect(ids([{ name: 'group-id', values: ['sg-b'] }])).toEqual(['i-2']);
  });

  it('supports tag:KEY, tag-key and tag-value with wildcards', () => {
    expect(ids([{ name: 'tag:Name', values: ['cp-*'] }])).toEqual(['i-1']);
    expect(ids([{ name: 'tag-key', values: ['kubernetes.io/cluster/*'] }])).toEqual(['i-1']);
    expect(ids([{ name: 'tag-value', values: ['worker-1'] }])).toEqual(['i-2']);
    // tag:KEY takes the key literally: a star in the key is not a wildcard.
    expect(ids([{ name: 'tag:Na*', values: ['*'] }])).toEqual([]);
  });

  it('rejects an unknown filter name with the service error', () => {
    expect(() => ids([{ name: 'no-such-filter', values: ['x'] }])).toThrow(
      "The filter 'no-such-filter' is invalid",
    );
  });

  it('does not treat inherited object keys as filter names', () => {
    expect(() => ids([{ name: 'constructor', values: ['x'] }])).toThrow(AwsApiError);
  });
});

describe('readFilters', () => {
  it('reads EC2 filters (Filter.N.Value.M) in index order', () => {
    const input = QueryInput.parse(
      'Filter.2.Name=b&Filter.2.Value.1=3&Filter.1.Name=a&Filter.1.Value.2=2&Filter.1.Value.1=1',
    );
    expect(readFilters(input, 'ec2')).toEqual([
      { name: 'a', values: ['1', '2'] },
      { name: 'b', values: ['3'] },
    ]);
  });

  it('reads Auto Scaling filters (Filters.member.N.Values.member.M)', () => {
    const input = QueryInput.parse('Filters.member.1.Name=tag%3Ak&Filters.member.1.Values.member.1=v');
    expect(readFilters(input, 'member')).toEqual([{ name: 'tag:k', values: ['v'] }]);
  });
});
