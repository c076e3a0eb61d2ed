/**
 * Who is calling. The admin is allowed everything; a role (or an instance's role, reached through IMDS
 * credentials) is checked against that role's policies when the seed enforces IAM.
 */
export type AwsPrincipal =
  | { readonly type: 'admin' }
  | { readonly type: 'role'; readonly roleName: string; readonly sessionName?: string | undefined }
  | { readonly type: 'instance'; readonly instanceId: string };

/** A principal resolved for one request: its ARN and STS user id, and the role whose policies apply. */
export interface CallerIdentity {
  readonly principal: AwsPrincipal;
  readonly arn: string;
  readonly userId: string;
  /** The role whose policies govern the caller; undefined for the admin. */
  readonly roleName: string | undefined;
  readonly accessKeyId: string | undefined;
}

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Present for temporary (role and instance) credentials. */
  readonly sessionToken?: string | undefined;
  /** When temporary credentials expire (clock time); a Date so SDK clients accept the object as is. */
  readonly expiration?: Date | undefined;
}
