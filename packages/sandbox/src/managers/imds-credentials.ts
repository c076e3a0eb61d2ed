import type { AwsStaticCredentials } from '../cloud-controllers/aws-api.js';
import { asGoError, GoAwsError, type Ec2MetadataClient } from '../cloud-controllers/ec2-metadata.js';

/** Refresh this long before the credentials expire (aws-sdk-go's defaults: ec2rolecreds ExpiryWindow 5 min). */
const REFRESH_BEFORE_MS = 5 * 60_000;

/**
 * The instance role's credentials as a process on the node gets them through the default credential
 * chain: aws-sdk-go's EC2RoleProvider (aws/credentials/ec2rolecreds) lists `iam/security-credentials/`, reads
 * the first role's document, and caches it until shortly before it expires on the clock. Failures read as
 * the chain reports them with verbose errors on (cloud-provider-aws sets CredentialsChainVerboseErrors):
 * `NoCredentialProviders: no valid providers in chain` caused by the role provider's error (the environment
 * and shared-file providers' own errors in that list are left out).
 */
export function imdsCredentials(
  metadata: () => Promise<Ec2MetadataClient> | Ec2MetadataClient,
  now: () => number,
): () => Promise<AwsStaticCredentials> {
  let cached: AwsStaticCredentials | undefined;
  return async () => {
    const expires = cached?.expiration?.getTime();
    if (cached && (expires === undefined || expires - now() > REFRESH_BEFORE_MS)) return cached;
    try {
      cached = await roleCredentials(await metadata());
      return cached;
    } catch (error) {
      throw new GoAwsError(
        'NoCredentialProviders',
        'no valid providers in chain',
        undefined,
        asGoError(error),
      );
    }
  };
}

async function roleCredentials(client: Ec2MetadataClient): Promise<AwsStaticCredentials> {
  let listing: string;
  try {
    listing = await client.getMetadata('iam/security-credentials/');
  } catch (error) {
    throw new GoAwsError('EC2RoleRequestError', 'no EC2 instance role found', undefined, asGoError(error));
  }
  const role = listing.trim().split('\n')[0]?.trim();
  if (!role) throw new GoAwsError('EmptyEC2RoleList', 'empty EC2 Role list');
  let text: string;
  try {
    text = await client.getMetadata(`iam/security-credentials/${role}`);
  } catch (error) {
    throw new GoAwsError(
      'EC2RoleRequestError',
      `failed to get ${role} EC2 instance role credentials`,
      undefined,
      asGoError(error),
    );
  }
  const doc = JSON.parse(text) as {
    Code?: string;
    Message?: string;
    AccessKeyId: string;
    SecretAccessKey: string;
    Token?: string;
    Expiration?: string;
  };
  if (doc.Code !== 'Success') throw new GoAwsError(doc.Code ?? 'Unknown', doc.Message ?? '');
  return {
    accessKeyId: doc.AccessKeyId,
    secretAccessKey: doc.SecretAccessKey,
    ...(doc.Token ? { sessionToken: doc.Token } : {}),
    ...(doc.Expiration ? { expiration: new Date(doc.Expiration) } : {}),
  };
}
