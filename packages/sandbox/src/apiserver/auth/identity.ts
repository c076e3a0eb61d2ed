/** A bearer token the sandbox accepts, and who it stands for. */
export interface Identity {
  /** Names the kubeconfig user entry. */
  readonly name: string;
  readonly token: string;
  readonly user: string;
  readonly groups?: readonly string[];
}

/** The authenticated caller, as RBAC sees it. */
export interface UserInfo {
  readonly name: string;
  readonly groups: readonly string[];
}

export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

export const DEFAULT_ADMIN: Identity = {
  name: 'admin',
  token: 'uproot-sandbox-admin',
  user: 'admin',
  groups: ['system:masters'],
};

const SA_PREFIX = 'system:serviceaccount:';

/** Groups the API server adds: everyone authenticated, and service accounts by namespace. */
export function userInfoOf(identity: Identity): UserInfo {
  const groups = new Set(identity.groups ?? []);
  if (identity.user.startsWith(SA_PREFIX)) {
    const ns = identity.user.slice(SA_PREFIX.length).split(':')[0] ?? '';
    groups.add('system:serviceaccounts');
    groups.add(`system:serviceaccounts:${ns}`);
  }
  groups.add('system:authenticated');
  return { name: identity.user, groups: [...groups] };
}

export type Authentication = { kind: 'user'; user: UserInfo } | { kind: 'anonymous' } | { kind: 'invalid' };

/** Another token authenticator in the union (bound service account tokens). */
export type TokenFallback = (token: string) => UserInfo | 'invalid' | 'not-ours';

/**
 * Static bearer tokens (like `--token-auth-file`), then the fallback (the service account token
 * authenticator). A missing header is anonymous; a token no authenticator accepts is invalid.
 */
export class TokenAuthenticator {
  private readonly byToken = new Map<string, UserInfo>();

  constructor(
    identities: readonly Identity[],
    private readonly fallback?: TokenFallback,
  ) {
    for (const i of identities) this.add(i);
  }

  add(identity: Identity): void {
    this.byToken.set(identity.token, userInfoOf(identity));
  }

  authenticate(authorization: string | undefined): Authentication {
    if (authorization === undefined || authorization === '') return { kind: 'anonymous' };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) return { kind: 'invalid' };
    const user = this.byToken.get(m[1]!);
    if (user) return { kind: 'user', user };
    const other = this.fallback?.(m[1]!);
    return other && other !== 'invalid' && other !== 'not-ours'
      ? { kind: 'user', user: other }
      : { kind: 'invalid' };
  }
}
