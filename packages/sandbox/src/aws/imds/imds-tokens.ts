import type { IdGenerator } from '../state/ids.js';

interface TokenRecord {
  readonly expiresAt: number;
  /** The instance the token was requested for; undefined when requested without an instance prefix. */
  readonly instanceId: string | undefined;
}

export const MAX_TOKEN_TTL_SECONDS = 21_600;

/**
 * IMDSv2 session tokens with clock-driven expiry. A token is bound to the instance it was requested for, so one
 * instance cannot read another's metadata with it. The SDK's MetadataService requests its token at
 * `/latest/api/token` even when its endpoint has a path prefix, so tokens issued without a prefix are unbound
 * and accepted for any instance.
 */
export class ImdsTokens {
  private readonly tokens = new Map<string, TokenRecord>();

  constructor(
    private readonly ids: IdGenerator,
    private readonly now: () => number,
  ) {}

  issue(ttlSeconds: number, instanceId: string | undefined): string {
    this.purge();
    const token = `AQAEA${this.ids.chars('imds-token', 51, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_')}==`;
    this.tokens.set(token, { expiresAt: this.now() + ttlSeconds * 1000, instanceId });
    return token;
  }

  /** True when the token exists, has not expired, and belongs to this instance (or to none). */
  valid(token: string | undefined, instanceId: string): boolean {
    if (token === undefined) return false;
    const record = this.tokens.get(token);
    if (!record) return false;
    if (this.now() >= record.expiresAt) {
      this.tokens.delete(token);
      return false;
    }
    return record.instanceId === undefined || record.instanceId === instanceId;
  }

  private purge(): void {
    if (this.tokens.size < 1000) return;
    const now = this.now();
    for (const [token, record] of this.tokens) if (now >= record.expiresAt) this.tokens.delete(token);
  }
}
