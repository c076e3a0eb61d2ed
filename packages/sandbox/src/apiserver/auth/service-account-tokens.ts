import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import type { Clock, Random } from 'uproot';
import { isJsonObject, type KubeObject } from '../kube-object.js';
import { randomUid } from '../store/object-meta.js';
import type { UserInfo } from './identity.js';

/**
 * Bound service account tokens, as the API server issues them for TokenRequest
 * (`serviceaccounts/<name>/token`, kubernetes pkg/registry/core/serviceaccount/storage/token.go) and
 * authenticates them (pkg/serviceaccount/jwt.go, claims.go): a JWT signed with the server's key whose
 * `kubernetes.io` claim names the service account (and the pod, secret or node it is bound to) by name
 * and uid. A token is refused once it expires (by the server's clock, virtual in a twin), when its
 * audiences miss the server's, or when the account or the bound object is gone or was recreated.
 * The twin signs with ES256 (an ECDSA service-account key, which kube-apiserver accepts as well as RSA).
 */

/** kube-apiserver's default issuer and API audience (`--service-account-issuer`, `--api-audiences`). */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface BoundObject {
  readonly kind: 'Pod' | 'Secret' | 'Node';
  readonly name: string;
  readonly uid: string;
}

export interface TokenClaims {
  readonly namespace: string;
  readonly serviceAccount: { readonly name: string; readonly uid: string };
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  readonly bound?: BoundObject;
  /** A pod binding also records the pod's node (kube-apiserver infers it, issue 121723). */
  readonly node?: { readonly name: string; readonly uid: string };
}

/** Objects the authenticator checks a token's bindings against. */
export interface BindingLookup {
  serviceAccount(namespace: string, name: string): KubeObject | undefined;
  object(kind: BoundObject['kind'], namespace: string, name: string): KubeObject | undefined;
}

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

interface JwtPayload {
  readonly iss?: unknown;
  readonly sub?: unknown;
  readonly aud?: unknown;
  readonly exp?: unknown;
  readonly nbf?: unknown;
  readonly 'kubernetes.io'?: unknown;
}

export class ServiceAccountTokens {
  private key: { readonly privateKey: KeyObject; readonly publicKey: KeyObject } | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly random: Random,
    readonly issuer = DEFAULT_ISSUER,
    readonly apiAudiences: readonly string[] = [DEFAULT_ISSUER],
  ) {}

  /** The signing key, made on first use (servers that never issue a token never pay for it). */
  private keys(): { privateKey: KeyObject; publicKey: KeyObject } {
    if (!this.key) {
      const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      this.key = {
        privateKey: createPrivateKey(pair.privateKey.export({ format: 'pem', type: 'pkcs8' })),
        publicKey: createPublicKey(pair.publicKey.export({ format: 'pem', type: 'spki' })),
      };
    }
    return this.key;
  }

  /** Signs a token; returns it with its expiry (ms since the epoch). */
  issue(claims: TokenClaims): { token: string; expiresAt: number } {
    const now = Math.floor(this.clock.now() / 1000);
    const exp = now + claims.expirationSeconds;
    const ref = (r: { name: string; uid: string }) => ({ name: r.name, uid: r.uid });
    const kubernetes: Record<string, unknown> = {
      namespace: claims.namespace,
      serviceaccount: ref(claims.serviceAccount),
      ...(claims.bound?.kind === 'Pod' ? { pod: ref(claims.bound) } : {}),
      ...(claims.bound?.kind === 'Secret' ? { secret: ref(claims.bound) } : {}),
      ...(claims.bound?.kind === 'Node' ? { node: ref(claims.bound) } : {}),
      ...(claims.node ? { node: ref(claims.node) } : {}),
    };
    const payload = {
      aud: claims.audiences,
      exp,
      iat: now,
      iss: this.issuer,
      jti: randomUid(this.random),
      'kubernetes.io': kubernetes,
      nbf: now,
      sub: `system:serviceaccount:${claims.namespace}:${claims.serviceAccount.name}`,
    };
    const input = `${b64({ alg: 'ES256', kid: 'uproot-sandbox' })}.${b64(payload)}`;
    const signature = sign('sha256', Buffer.from(input), {
      key: this.keys().privateKey,
      dsaEncoding: 'ieee-p1363',
    });
    return { token: `${input}.${signature.toString('base64url')}`, expiresAt: exp * 1000 };
  }

  /**
   * The user a bound token stands for, or 'invalid' (a 401: signature, issuer, audience, time window, or
   * bindings wrong), or 'not-ours' when the string is not a JWT at all (other authenticators may know it).
   */
  authenticate(token: string, lookup: BindingLookup): UserInfo | 'invalid' | 'not-ours' {
    const parts = token.split('.');
    if (parts.length !== 3 || !this.key) return parts.length === 3 ? 'invalid' : 'not-ours';
    const [header, body, signature] = parts as [string, string, string];
    const ok = verify(
      'sha256',
      Buffer.from(`${header}.${body}`),
      { key: this.key.publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    );
    if (!ok) return 'invalid';
    let payload: JwtPayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as JwtPayload;
    } catch {
      return 'invalid';
    }
    const now = this.clock.now() / 1000;
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (payload.iss !== this.issuer) return 'invalid';
    if (!audiences.some((a) => this.apiAudiences.includes(String(a)))) return 'invalid';
    if (typeof payload.exp !== 'number' || now >= payload.exp) return 'invalid';
    if (typeof payload.nbf === 'number' && now < payload.nbf) return 'invalid';
    const k = isJsonObject(payload['kubernetes.io']) ? payload['kubernetes.io'] : undefined;
    const namespace = typeof k?.namespace === 'string' ? k.namespace : '';
    const sa = isJsonObject(k?.serviceaccount) ? k.serviceaccount : {};
    const account = lookup.serviceAccount(namespace, String(sa.name ?? ''));
    if (!account || account.metadata?.uid !== sa.uid) return 'invalid';
    for (const kind of ['Pod', 'Secret'] as const) {
      const ref = k?.[kind.toLowerCase()];
      if (!isJsonObject(ref)) continue;
      const bound = lookup.object(kind, namespace, String(ref.name ?? ''));
      if (!bound || bound.metadata?.uid !== ref.uid || bound.metadata?.deletionTimestamp) return 'invalid';
    }
    const name = `system:serviceaccount:${namespace}:${String(sa.name)}`;
    return {
      name,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    };
  }
}
