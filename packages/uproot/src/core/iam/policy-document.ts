/**
 * IAM returns policy documents URL-encoded (RFC 3986) inside the XML; the SDK hands them over still encoded.
 * Decoding twice would corrupt a document containing a literal `%`, so decode only what is not already JSON.
 */
export function decodePolicyDocument(raw: string): unknown {
  const text = raw.trim();
  if (text.startsWith('{')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // fall through: `{` and then an encoded character is still an encoded document
    }
  }
  return JSON.parse(decodeURIComponent(text.replace(/\+/g, '%20'))) as unknown;
}

export interface PolicyStatement {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Action?: string | readonly string[];
  readonly NotAction?: string | readonly string[];
  readonly Resource?: string | readonly string[];
  readonly Condition?: unknown;
}

/** The statements of a document, tolerating a single statement object instead of a list. */
export function statementsOf(document: unknown): readonly PolicyStatement[] {
  if (typeof document !== 'object' || document === null) return [];
  const statement = (document as { Statement?: unknown }).Statement;
  const list = Array.isArray(statement) ? statement : statement ? [statement] : [];
  return list.filter(
    (s): s is PolicyStatement => typeof s === 'object' && s !== null && 'Effect' in (s as object),
  );
}

export function asList(value: string | readonly string[] | undefined): readonly string[] {
  return value === undefined ? [] : typeof value === 'string' ? [value] : value;
}
