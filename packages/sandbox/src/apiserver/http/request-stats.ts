import type { RequestInfo } from './request-info.js';

export interface ApiServerStats {
  readonly total: number;
  readonly byVerb: Readonly<Record<string, number>>;
  /** Keyed by group-qualified resource (`leases.coordination.k8s.io`), or the path for non-resource requests. */
  readonly byResource: Readonly<Record<string, number>>;
  /** Keyed `verb resource`, e.g. `update leases.coordination.k8s.io`. */
  readonly byVerbAndResource: Readonly<Record<string, number>>;
  readonly openWatches: number;
}

/** Counts requests by verb and resource, for tests that assert how clients behaved. */
export class RequestStats {
  private total = 0;
  private byVerb = new Map<string, number>();
  private byResource = new Map<string, number>();
  private byBoth = new Map<string, number>();

  record(info: RequestInfo): void {
    this.total++;
    const resource = info.isResourceRequest
      ? `${info.resource}${info.subresource ? `/${info.subresource}` : ''}${info.apiGroup ? `.${info.apiGroup}` : ''}`
      : info.path;
    bump(this.byVerb, info.verb);
    bump(this.byResource, resource);
    bump(this.byBoth, `${info.verb} ${resource}`);
  }

  snapshot(openWatches: number): ApiServerStats {
    return {
      total: this.total,
      byVerb: Object.fromEntries(this.byVerb),
      byResource: Object.fromEntries(this.byResource),
      byVerbAndResource: Object.fromEntries(this.byBoth),
      openWatches,
    };
  }

  reset(): void {
    this.total = 0;
    this.byVerb = new Map();
    this.byResource = new Map();
    this.byBoth = new Map();
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
