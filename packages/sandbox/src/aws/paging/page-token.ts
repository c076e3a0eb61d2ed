import type { AwsApiError } from '../protocol/aws-api-error.js';

/**
 * Paging by cursor, not offset: a token remembers the creation sequence of the last item returned, so a page
 * boundary stays put when items are added or removed between calls. The token is opaque to clients (base64url)
 * and names the listing it belongs to, so a token from one call is rejected by another.
 */
export interface Page<T> {
  readonly items: T[];
  /** The token for the next page, or undefined on the last page. */
  readonly next: string | undefined;
}

export function encodePageToken(listing: string, afterSeq: number): string {
  return Buffer.from(JSON.stringify({ l: listing, a: afterSeq })).toString('base64url');
}

/** Decodes a token for `listing`; an undecodable or foreign token fails with `invalid`. */
export function decodePageToken(token: string, listing: string, invalid: () => AwsApiError): number {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      (parsed as { l?: unknown }).l === listing &&
      typeof (parsed as { a?: unknown }).a === 'number'
    ) {
      return (parsed as { a: number }).a;
    }
  } catch {
    // fall through to the invalid-token error
  }
  throw invalid();
}

/**
 * One page of `items` (sorted by `seq`) after the cursor in `token`. With no limit everything after the
 * cursor is returned.
 */
export function paginate<T>(
  items: readonly T[],
  seqOf: (item: T) => number,
  options: {
    listing: string;
    token?: string | undefined;
    limit?: number | undefined;
    invalid: () => AwsApiError;
  },
): Page<T> {
  let start = 0;
  if (options.token !== undefined && options.token !== '') {
    const after = decodePageToken(options.token, options.listing, options.invalid);
    // Binary search for the first item whose seq is greater than the cursor.
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (seqOf(items[mid]!) <= after) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const end = options.limit === undefined ? items.length : Math.min(items.length, start + options.limit);
  const page = items.slice(start, end);
  const last = page[page.length - 1];
  const next =
    end < items.length && last !== undefined ? encodePageToken(options.listing, seqOf(last)) : undefined;
  return { items: page, next };
}
