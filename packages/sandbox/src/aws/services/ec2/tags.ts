import { compileFilters, readFilters } from '../../filters/filter-engine.js';
import { paginate } from '../../paging/page-token.js';
import { missingParameter } from '../../protocol/aws-api-error.js';
import { escapeXml } from '../../protocol/xml.js';
import { resourceTypeOf, type TagDescription } from '../../state/ec2-store.js';
import type { ActionContext, ActionTable } from '../service-types.js';
import { ec2Arn, invalidFilter, invalidNextToken, maxResults } from './ec2-common.js';

function taggedArns({ state, input }: ActionContext): string[] {
  return input
    .list('ResourceId', 'ec2')
    .map((id) => ec2Arn(state.region, state.accountId, resourceTypeOf(id) ?? 'resource', id));
}

function resourceIds({ input }: ActionContext): string[] {
  const ids = input.list('ResourceId', 'ec2');
  if (ids.length === 0) throw missingParameter('ResourceId');
  return ids;
}

function describeTags({ state, input }: ActionContext): string {
  const limit = maxResults(input);
  const matches = compileFilters(
    readFilters(input, 'ec2'),
    {
      fields: {
        'resource-id': (t: TagDescription) => t.resourceId,
        'resource-type': (t: TagDescription) => t.resourceType,
        key: (t: TagDescription) => t.key,
        value: (t: TagDescription) => t.value,
      },
    },
    invalidFilter,
  );
  const selected = state.ec2
    .allTags()
    .filter(matches)
    .map((t, i) => ({ t, seq: i + 1 }));
  const page = paginate(selected, (e) => e.seq, {
    listing: 'DescribeTags',
    token: input.string('NextToken'),
    limit,
    invalid: invalidNextToken,
  });
  const items = page.items
    .map(
      ({ t }) =>
        `<item><resourceId>${t.resourceId}</resourceId><resourceType>${t.resourceType}</resourceType>` +
        `<key>${escapeXml(t.key)}</key><value>${escapeXml(t.value)}</value></item>`,
    )
    .join('');
  return (
    (items === '' ? '<tagSet/>' : `<tagSet>${items}</tagSet>`) +
    (page.next ? `<nextToken>${page.next}</nextToken>` : '')
  );
}

export const tagActions: ActionTable = {
  CreateTags: {
    resources: taggedArns,
    handle: (ctx) => {
      const tags: Record<string, string> = {};
      for (const t of ctx.input.structs('Tag', 'ec2'))
        tags[t.requiredString('Key')] = t.string('Value') ?? '';
      ctx.state.ec2.createTags(resourceIds(ctx), tags);
      return '<return>true</return>';
    },
  },
  DeleteTags: {
    resources: taggedArns,
    handle: (ctx) => {
      const tags = ctx.input
        .structs('Tag', 'ec2')
        .map((t) => ({ key: t.requiredString('Key'), value: t.string('Value') }));
      ctx.state.ec2.deleteTags(resourceIds(ctx), tags);
      return '<return>true</return>';
    },
  },
  DescribeTags: { handle: describeTags },
};
