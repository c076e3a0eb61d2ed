/**
 * Removes secrets from text uproot logs or stores (command lines, process output): bearer tokens, AWS access
 * keys and secret keys, PEM private keys, and `token=`/`password=`/`secret=` style assignments.
 */
const RULES: readonly [RegExp, string][] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, '<redacted private key>'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 <redacted>'],
  [/\b(A3T[A-Z0-9]|AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA)[A-Z0-9]{16}\b/g, '<redacted access key>'],
  [
    /\b([A-Za-z0-9_-]*(?:secret|password|passwd|token|api[_-]?key|access[_-]?key|private[_-]?key)[A-Za-z0-9_-]*)(["']?\s*[:=]\s*["']?)[^\s"',;]+/gi,
    '$1$2<redacted>',
  ],
];

export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out;
}
