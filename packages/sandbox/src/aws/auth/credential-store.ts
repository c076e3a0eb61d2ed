import { InternalError } from 'uproot';
import type { IdGenerator } from '../state/ids.js';
import type { AwsCredentials, AwsPrincipal, CallerIdentity } from './principal.js';

/**
 * The dummy key every sandbox user gets (`awsEnvironment`): it maps to the admin, who may do anything. It is
 * not a secret; it only exists so SDKs have something to sign with.
 */
export const SANDBOX_ADMIN_CREDENTIALS: AwsCredentials = {
  accessKeyId: 'AKIASANDBOXUPROOT001',
  secretAccessKey: 'sandbox-secret-key-not-a-real-credential',
};

interface KeyRecord {
  readonly credentials: AwsCredentials;
  readonly principal: AwsPrincipal;
  /** The role whose policies apply, fixed when the key was issued (as an STS session is). */
  readonly roleName: string | undefined;
  readonly sessionName: string | undefined;
}

/** Issues and resolves access keys. Issued keys are deterministic (ids from the generator) and never logged. */
export class CredentialStore {
  private readonly keys = new Map<string, KeyRecord>();
  /** The current temporary key per role session, reused until close to expiry. */
  private readonly sessions = new Map<string, string>();
  private readonly adminUserId: string;

  constructor(
    private readonly ids: IdGenerator,
    private readonly accountId: string,
    private readonly adminUserName: string,
    private readonly roleIdOf: (roleName: string) => string | undefined,
    private readonly now: () => number,
    private readonly ttlMs: number,
  ) {
    this.adminUserId = ids.iamId('AIDA');
    this.addStatic(SANDBOX_ADMIN_CREDENTIALS, { type: 'admin' });
  }

  /** Declares a long-lived key (seed `accessKeys`). */
  addStatic(credentials: AwsCredentials, principal: Exclude<AwsPrincipal, { type: 'instance' }>): void {
    const roleName = principal.type === 'role' ? principal.roleName : undefined;
    const sessionName = principal.type === 'role' ? (principal.sessionName ?? 'sandbox-session') : undefined;
    this.keys.set(credentials.accessKeyId, { credentials, principal, roleName, sessionName });
  }

  /** Credentials for a principal: the admin key, or a temporary key for a role or an instance's role. */
  issue(principal: AwsPrincipal, roleName?: string): AwsCredentials {
    if (principal.type === 'admin') return SANDBOX_ADMIN_CREDENTIALS;
    const role = principal.type === 'role' ? principal.roleName : roleName;
    if (role === undefined) {
      throw new InternalError('temporary credentials need a role; AwsState.credentialsFor resolves it');
    }
    const sessionName =
      principal.type === 'role' ? (principal.sessionName ?? 'sandbox-session') : principal.instanceId;
    const sessionKey = `${role}\u0000${sessionName}`;
    const current = this.sessions.get(sessionKey);
    const record = current === undefined ? undefined : this.keys.get(current);
    // Reuse until a quarter of the lifetime is left, the way IMDS rotates instance credentials early.
    if (record && (record.credentials.expiration?.getTime() ?? 0) - this.now() > this.ttlMs / 4)
      return record.credentials;
    const credentials: AwsCredentials = {
      accessKeyId: `ASIA${this.ids.chars('access-key', 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`,
      secretAccessKey: this.ids.chars('secret-key', 40),
      sessionToken: `IQoJb3JpZ2luX2VjE${this.ids.chars('session-token', 300)}`,
      expiration: new Date(this.now() + this.ttlMs),
    };
    this.keys.set(credentials.accessKeyId, { credentials, principal, roleName: role, sessionName });
    this.sessions.set(sessionKey, credentials.accessKeyId);
    return credentials;
  }

  /** Who signed with this key, or undefined for a key the account never issued. */
  identify(accessKeyId: string): CallerIdentity | undefined {
    const record = this.keys.get(accessKeyId);
    if (!record) return undefined;
    return this.identityOf(record, accessKeyId);
  }

  /** The identity used for unknown keys when IAM is not enforced: the admin. */
  adminIdentity(accessKeyId: string | undefined): CallerIdentity {
    return {
      principal: { type: 'admin' },
      arn: `arn:aws:iam::${this.accountId}:user/${this.adminUserName}`,
      userId: this.adminUserId,
      roleName: undefined,
      accessKeyId,
    };
  }

  private identityOf(record: KeyRecord, accessKeyId: string): CallerIdentity {
    if (record.roleName === undefined) return this.adminIdentity(accessKeyId);
    const roleId = this.roleIdOf(record.roleName) ?? 'AROAUNKNOWNROLE000000';
    return {
      principal: record.principal,
      arn: `arn:aws:sts::${this.accountId}:assumed-role/${record.roleName}/${record.sessionName}`,
      userId: `${roleId}:${record.sessionName}`,
      roleName: record.roleName,
      accessKeyId,
    };
  }
}
