/**
 * The credential scope of a SigV4-signed request: who signed (access key id) and for which region and service.
 * Every query-family call is `POST /`, so the signing name is what tells EC2 from IAM. Signatures are not
 * verified: the emulator trusts the key id, the way a test double should.
 */
export interface CredentialScope {
  readonly accessKeyId: string;
  readonly date: string;
  readonly region: string;
  readonly service: string;
}

const SCOPE_RE = /Credential=([^/,\s]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request/;

/** From the `Authorization` header, or from a presigned URL's `X-Amz-Credential`. Undefined when unsigned. */
export function parseCredentialScope(
  authorization: string | undefined,
  presignedCredential?: string | null,
): CredentialScope | undefined {
  const text = authorization ?? (presignedCredential ? `Credential=${presignedCredential}` : undefined);
  if (!text) return undefined;
  const m = SCOPE_RE.exec(text);
  if (!m) return undefined;
  return { accessKeyId: m[1]!, date: m[2]!, region: m[3]!, service: m[4]! };
}
