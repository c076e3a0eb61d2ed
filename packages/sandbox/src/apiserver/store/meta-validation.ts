import { isJsonObject, type JsonObject } from '../kube-object.js';
import type { NameRule } from '../registry/resource-type.js';

/**
 * ObjectMeta validation as the API server runs it before anything is stored (BeforeCreate/BeforeUpdate →
 * strategy.Validate). The texts are those of the release line the twins serve (kubernetes/apimachinery
 * v0.32, `pkg/util/validation/validation.go`, `pkg/api/validation/objectmeta.go`,
 * `pkg/apis/meta/v1/validation/validation.go`, `pkg/util/validation/field/errors.go`).
 */

export interface MetaCause {
  readonly field: string;
  readonly message: string;
  readonly type: 'FieldValueInvalid' | 'FieldValueTooLong' | 'FieldValueRequired';
}

// validation.go: the formats and messages, composed as upstream composes them.
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const anchored = (fmt: string): RegExp => new RegExp(`^${fmt}$`);
const DNS1123_LABEL = anchored(DNS1123_LABEL_FMT);
const DNS1123_SUBDOMAIN = anchored(DNS1123_SUBDOMAIN_FMT);
const DNS1035_LABEL = anchored(DNS1035_LABEL_FMT);
const QUALIFIED_NAME = anchored(QUALIFIED_NAME_FMT);
const LABEL_VALUE = anchored(LABEL_VALUE_FMT);

const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** objectmeta.go TotalAnnotationSizeLimitB. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;

/** validation.go MaxLenError. */
const maxLenError = (n: number): string => `must be no more than ${n} characters`;

/** validation.go RegexError (its "', " then " or " is where the double spaces come from). */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** Go byte length (len(string) counts UTF-8 bytes). */
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** validation.go IsDNS1123Subdomain. */
export function isDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(value))
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** validation.go IsDNS1123Label (a valid subdomain that is not a label can only have dots). */
export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL.test(value)) {
    if (DNS1123_SUBDOMAIN.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

/** validation.go IsDNS1035Label. */
export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value))
    errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/** validation.go IsQualifiedName: an optional DNS-subdomain prefix and '/', then a name of at most 63. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME.test(name)) {
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

/** validation.go IsValidLabelValue. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE.test(value))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** apimachinery pkg/api/validation/path/name.go IsValidPathSegmentName / IsValidPathSegmentPrefix (RBAC). */
function pathSegmentErrors(name: string, prefix: boolean): string[] {
  const errs: string[] = [];
  if (!prefix && (name === '.' || name === '..')) errs.push(`may not be '${name}'`);
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/** generic.go maskTrailingDash: a generateName may end in '-', as the random suffix follows it. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/**
 * The kind's ValidateNameFunc (generic.go NameIsDNSSubdomain / NameIsDNSLabel / NameIsDNS1035Label, and
 * RBAC's path-segment rule); `prefix` for a generateName.
 */
export function nameErrors(name: string, rule: NameRule, prefix = false): string[] {
  if (rule === 'path-segment') return pathSegmentErrors(name, prefix);
  const value = prefix ? maskTrailingDash(name) : name;
  switch (rule) {
    case 'dns-subdomain':
      return isDns1123Subdomain(value);
    case 'dns-label':
      return isDns1123Label(value);
    case 'dns-1035-label':
      return isDns1035Label(value);
  }
}

/** Go's %q of a string, as field.Invalid prints the bad value. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

const invalidCause = (field: string, value: string, msg: string): MetaCause => ({
  field,
  message: `Invalid value: ${goQuote(value)}: ${msg}`,
  type: 'FieldValueInvalid',
});

/** Go ranges over maps in random order; sorted keys keep the twin's answers repeatable. */
function stringEntries(map: unknown): [string, string][] {
  if (!isJsonObject(map)) return [];
  return Object.keys(map)
    .sort()
    .map((k) => [k, typeof map[k] === 'string' ? (map[k] as string) : String(map[k])]);
}

/** meta/v1/validation ValidateLabels. */
export function labelCauses(labels: unknown, field = 'metadata.labels'): MetaCause[] {
  const out: MetaCause[] = [];
  for (const [k, v] of stringEntries(labels)) {
    for (const msg of isQualifiedName(k)) out.push(invalidCause(field, k, msg));
    for (const msg of isValidLabelValue(v)) out.push(invalidCause(field, v, msg));
  }
  return out;
}

/** objectmeta.go ValidateAnnotations: keys are qualified names in any case; keys and values ≤ 256 KiB. */
export function annotationCauses(annotations: unknown, field = 'metadata.annotations'): MetaCause[] {
  const out: MetaCause[] = [];
  let total = 0;
  for (const [k, v] of stringEntries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) out.push(invalidCause(field, k, msg));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_B) {
    out.push({
      field,
      message: `Too long: may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT_B} bytes`,
      type: 'FieldValueTooLong',
    });
  }
  return out;
}

/**
 * objectmeta.go ValidateObjectMetaAccessor (generateName, name, labels, annotations), for a create and,
 * through ValidateObjectMetaAccessorUpdate, for every update and patch.
 */
export function objectMetaCauses(meta: JsonObject, rule: NameRule): MetaCause[] {
  const out: MetaCause[] = [];
  const generateName = typeof meta.generateName === 'string' ? meta.generateName : '';
  if (generateName) {
    for (const msg of nameErrors(generateName, rule, true))
      out.push(invalidCause('metadata.generateName', generateName, msg));
  }
  const name = typeof meta.name === 'string' ? meta.name : '';
  if (!name) {
    out.push({
      field: 'metadata.name',
      message: 'Required value: name or generateName is required',
      type: 'FieldValueRequired',
    });
  } else {
    for (const msg of nameErrors(name, rule)) out.push(invalidCause('metadata.name', name, msg));
  }
  out.push(...labelCauses(meta.labels), ...annotationCauses(meta.annotations));
  return out;
}
