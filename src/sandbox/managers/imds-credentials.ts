import { MetadataService } from '@aws-sdk/ec2-metadata-service';
import type { Clock } from '../../index.js';
import type { AwsStaticCredentials } from '../cloud-controllers/aws-api.js';
import { ComponentError } from '../component-error.js';

/** Refresh this long before the credentials expire, as the SDK's instance-metadata provider does. */
const REFRESH_BEFORE_MS = 5 * 60_000;

/**
 * The instance role's credentials as a process on the node gets them: IMDSv2 (token, then
 * `iam/security-credentials/<role>`), cached until shortly before they expire on the clock. Every request
 * is tracked on the clock; SDK retries are off (real-time backoff would be invisible to a virtual clock).
 */
export function imdsCredentials(endpoint: string, clock: Clock): () => Promise<AwsStaticCredentials> {
  let cached: AwsStaticCredentials | undefined;
  return async () => {
    const expires = cached?.expiration?.getTime();
    if (cached && (expires === undefined || expires - clock.now() > REFRESH_BEFORE_MS)) return cached;
    const imds = new MetadataService({ endpoint, retries: 0 });
    const listing = await clock.track(imds.request('/latest/meta-data/iam/security-credentials/', {}));
    const role = listing.trim().split('\n')[0]?.trim();
    if (!role)
      throw new ComponentError('the instance has no IAM role (IMDS iam/security-credentials/ is empty)');
    const doc = JSON.parse(
      await clock.track(imds.request(`/latest/meta-data/iam/security-credentials/${role}`, {})),
    ) as {
      AccessKeyId: string;
      SecretAccessKey: string;
      Token?: string;
      Expiration?: string;
    };
    cached = {
      accessKeyId: doc.AccessKeyId,
      secretAccessKey: doc.SecretAccessKey,
      ...(doc.Token ? { sessionToken: doc.Token } : {}),
      ...(doc.Expiration ? { expiration: new Date(doc.Expiration) } : {}),
    };
    return cached;
  };
}
