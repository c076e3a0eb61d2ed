import { compileFilters, readFilters, type FilterSchema } from '../../filters/filter-engine.js';
import { paginate } from '../../paging/page-token.js';
import type { AwsApiError } from '../../protocol/aws-api-error.js';
import type { ActionContext } from '../service-types.js';
import { invalidFilter, invalidNextToken, maxResults, selectByIds } from './ec2-common.js';

/** A paged, filtered Describe call over one collection, rendered as `<setName><item>…</item></setName>`. */
export function describeCollection<T extends { id: string; seq: number }>(
  ctx: ActionContext,
  options: {
    all: readonly T[];
    idParam: string;
    notFound: (id: string) => AwsApiError;
    schema: FilterSchema<T>;
    setName: string;
    render: (item: T) => string;
  },
): string {
  const { input } = ctx;
  const limit = maxResults(input);
  const selected = selectByIds(options.all, input.list(options.idParam, 'ec2'), options.notFound).filter(
    compileFilters(readFilters(input, 'ec2'), options.schema, invalidFilter),
  );
  const page = paginate(selected, (i) => i.seq, {
    listing: ctx.action,
    token: input.string('NextToken'),
    limit,
    invalid: invalidNextToken,
  });
  const body = page.items.map(options.render).join('');
  return (
    (body === '' ? `<${options.setName}/>` : `<${options.setName}>${body}</${options.setName}>`) +
    (page.next ? `<nextToken>${page.next}</nextToken>` : '')
  );
}
