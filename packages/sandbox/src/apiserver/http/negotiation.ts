export interface MediaRange {
  readonly type: string;
  readonly params: Readonly<Record<string, string>>;
}

/** Splits an Accept header into media ranges, in the client's order (q=0 entries dropped). */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [{ type: '*/*', params: {} }];
  const out: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [type, ...rawParams] = part.split(';').map((s) => s.trim());
    if (!type) continue;
    const params: Record<string, string> = {};
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
    }
    if (params.q === '0') continue;
    out.push({ type: type.toLowerCase(), params });
  }
  return out;
}

const JSONISH = new Set(['application/json', '*/*', 'application/*', 'application/yaml']);

export type DiscoveryFormat = 'v2' | 'v2beta1' | 'legacy';

/** Aggregated discovery is chosen by Accept and announced by Content-Type (client-go decides on the latter). */
export function discoveryFormat(accept: readonly MediaRange[]): DiscoveryFormat {
  for (const m of accept) {
    if (
      m.type === 'application/json' &&
      m.params.as === 'APIGroupDiscoveryList' &&
      m.params.g === 'apidiscovery.k8s.io'
    ) {
      if (m.params.v === 'v2' || m.params.v === 'v2beta1') return m.params.v;
      continue;
    }
    if (JSONISH.has(m.type) && m.params.as === undefined) return 'legacy';
  }
  return 'legacy';
}

export function discoveryContentType(format: Exclude<DiscoveryFormat, 'legacy'>): string {
  return `application/json;g=apidiscovery.k8s.io;v=${format};as=APIGroupDiscoveryList`;
}
