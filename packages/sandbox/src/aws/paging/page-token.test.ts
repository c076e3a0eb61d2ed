import { describe, expect, it } from 'vitest';
import { AwsApiError } from '../protocol/aws-api-error.js';
import { encodePageToken, paginate } from './page-token.js';

const invalid = (): AwsApiError => new AwsApiError('InvalidParameterValue', 'bad token');
const items = Array.from({ length: 12 }, (_, i) => ({ seq: (i + 1) * 10 }));

function walk(list: readonly { seq: number }[], limit: number): number[][] {
  const pages: number[][] = [];
  let token: string | undefined;
  do {
    const page = paginate(list, (x) => x.seq, { listing: 'L', token, limit, invalid });
    pages.push(page.items.map((x) => x.seq));
    token = page.next;
  } while (token);
  return pages;
}

describe('paginate', () => {
  it('returns everything in one page without a limit', () => {
    const page = paginate(items, (x) => x.seq, { listing: 'L', invalid });
    expect(page.items).toHaveLength(12);
    expect(page.next).toBeUndefined();
  });

  it('walks every item exactly once across pages, the last page without a token', () => {
    const pages = walk(items, 5);
    expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
    expect(pages.flat()).toEqual(items.map((x) => x.seq));
  });

  it('has no empty trailing page when the count divides evenly', () => {
    expect(walk(items, 6).map((p) => p.length)).toEqual([6, 6]);
  });

  it('keeps its place when an earlier item disappears between pages', () => {
    const first = paginate(items, (x) => x.seq, { listing: 'L', limit: 5, invalid });
    const shrunk = items.filter((x) => x.seq !== 20);
    const second = paginate(shrunk, (x) => x.seq, { listing: 'L', token: first.next, limit: 5, invalid });
    expect(second.items.map((x) => x.seq)).toEqual([60, 70, 80, 90, 100]);
  });

  it('rejects garbage and tokens from another listing', () => {
    expect(() => paginate(items, (x) => x.seq, { listing: 'L', token: 'garbage', invalid })).toThrow(
      'bad token',
    );
    expect(() =>
      paginate(items, (x) => x.seq, { listing: 'L', token: encodePageToken('Other', 10), invalid }),
    ).toThrow(AwsApiError);
  });
});
