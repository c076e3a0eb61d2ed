/**
 * XML for the AWS Query family, built by string concatenation: responses are small trees with known shapes, and
 * DescribeInstances over thousands of instances must stay fast. EC2 names list members `item`; the other query
 * services name them `member`.
 */
export type XmlValue =
  | string
  | number
  | boolean
  | Date
  | null
  | undefined
  | readonly XmlValue[]
  | { readonly [key: string]: XmlValue };

export type XmlObject = { readonly [key: string]: XmlValue };

export type ListItemName = 'item' | 'member';

const NEEDS_ESCAPE = /[&<>"'\r]/;

export function escapeXml(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;');
}

function scalar(value: string | number | boolean | Date): string {
  if (typeof value === 'string') return escapeXml(value);
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** `<name>value</name>`; nothing for undefined/null; lists become `<name><item>…</item></name>`. */
export function xmlElement(name: string, value: XmlValue, itemName: ListItemName): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) {
    if (value.length === 0) return `<${name}/>`;
    let inner = '';
    for (const entry of value as readonly XmlValue[]) inner += xmlElement(itemName, entry, itemName);
    return `<${name}>${inner}</${name}>`;
  }
  if (typeof value === 'object' && !(value instanceof Date)) {
    return `<${name}>${xmlFields(value as { readonly [key: string]: XmlValue }, itemName)}</${name}>`;
  }
  return `<${name}>${scalar(value as string | number | boolean | Date)}</${name}>`;
}

/** The children of an object, one element per defined key, in key order. */
export function xmlFields(fields: { readonly [key: string]: XmlValue }, itemName: ListItemName): string {
  let out = '';
  for (const key in fields) out += xmlElement(key, fields[key], itemName);
  return out;
}

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

export const EC2_NAMESPACE = 'http://ec2.amazonaws.com/doc/2016-11-15/';

/** EC2's success shape: no Result wrapper, `requestId` first. */
export function ec2Envelope(action: string, requestId: string, body: string): string {
  return `${XML_DECLARATION}<${action}Response xmlns="${EC2_NAMESPACE}"><requestId>${requestId}</requestId>${body}</${action}Response>`;
}

/** The query services' success shape: `<XResponse><XResult>…</XResult><ResponseMetadata/></XResponse>`. */
export function queryEnvelope(
  action: string,
  namespace: string,
  requestId: string,
  result: string | undefined,
): string {
  const resultXml = result === undefined ? '' : `<${action}Result>${result}</${action}Result>`;
  return `${XML_DECLARATION}<${action}Response xmlns="${namespace}">${resultXml}<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`;
}

/** EC2's error shape (note `RequestID`, not `RequestId`). */
export function ec2ErrorDocument(code: string, message: string, requestId: string): string {
  return `${XML_DECLARATION}<Response><Errors><Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`;
}

/** The query services' error shape. */
export function queryErrorDocument(
  namespace: string,
  type: 'Sender' | 'Receiver',
  code: string,
  message: string,
  requestId: string,
): string {
  return `${XML_DECLARATION}<ErrorResponse xmlns="${namespace}"><Error><Type>${type}</Type><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`;
}
