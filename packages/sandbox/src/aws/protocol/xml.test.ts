import { XMLParser } from 'fast-xml-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ec2Envelope,
  ec2ErrorDocument,
  escapeXml,
  queryEnvelope,
  queryErrorDocument,
  xmlElement,
  xmlFields,
} from './xml.js';

const parser = new XMLParser({ ignoreAttributes: false, parseTagValue: false, trimValues: false });

/** No control characters, lone surrogates or non-characters: none may appear in XML 1.0 text. */
function printable(text: string): boolean {
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff) return false;
  }
  return true;
}

describe('escapeXml', () => {
  it('escapes the five XML specials', () => {
    expect(escapeXml(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;');
  });

  it('round-trips any text through an XML parser', () => {
    fc.assert(
      // Printable text: control characters are not allowed in XML 1.0 at all.
      fc.property(fc.string().filter(printable), (text) => {
        const doc = parser.parse(`<v>${escapeXml(text)}</v>`) as { v: string };
        expect(String(doc.v ?? '')).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});

describe('xmlElement', () => {
  it('renders EC2 lists as <item> and skips undefined fields', () => {
    expect(xmlElement('tagSet', [{ key: 'a', value: 'b' }], 'item')).toBe(
      '<tagSet><item><key>a</key><value>b</value></item></tagSet>',
    );
    expect(xmlFields({ a: undefined, b: null, c: 1 }, 'item')).toBe('<c>1</c>');
  });

  it('renders query-service lists as <member>, including lists of strings', () => {
    expect(xmlElement('Subnets', ['s-1', 's-2'], 'member')).toBe(
      '<Subnets><member>s-1</member><member>s-2</member></Subnets>',
    );
  });

  it('renders an empty list as an empty element, booleans and dates as AWS does', () => {
    expect(xmlElement('groupSet', [], 'item')).toBe('<groupSet/>');
    expect(xmlFields({ ok: true, at: new Date(Date.UTC(2026, 0, 2)) }, 'member')).toBe(
      '<ok>true</ok><at>2026-01-02T00:00:00.000Z</at>',
    );
  });

  it('escapes text values', () => {
    expect(xmlElement('Description', 'a<b', 'member')).toBe('<Description>a&lt;b</Description>');
  });
});

describe('envelopes', () => {
  it('wraps EC2 bodies without a Result element, requestId first', () => {
    const doc = parser.parse(ec2Envelope('DescribeVpcs', 'req-1', '<vpcSet/>')) as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(doc.DescribeVpcsResponse!)).toEqual(['requestId', 'vpcSet', '@_xmlns']);
  });

  it('wraps query bodies in <XResult> with ResponseMetadata', () => {
    const doc = parser.parse(queryEnvelope('GetRole', 'urn:x', 'req-2', '<Role/>')) as {
      GetRoleResponse: { GetRoleResult: unknown; ResponseMetadata: { RequestId: string } };
    };
    expect(doc.GetRoleResponse.ResponseMetadata.RequestId).toBe('req-2');
    expect(doc.GetRoleResponse.GetRoleResult).toBeDefined();
  });

  it('omits the Result element for actions without output', () => {
    expect(queryEnvelope('PutRolePolicy', 'urn:x', 'r', undefined)).not.toContain('PutRolePolicyResult');
  });

  it('renders the two error shapes', () => {
    const ec2 = parser.parse(
      ec2ErrorDocument('InvalidInstanceID.NotFound', "The instance ID 'i-1' does not exist", 'r'),
    ) as {
      Response: { Errors: { Error: { Code: string; Message: string } }; RequestID: string };
    };
    expect(ec2.Response.Errors.Error.Code).toBe('InvalidInstanceID.NotFound');
    expect(ec2.Response.RequestID).toBe('r');
    const query = parser.parse(queryErrorDocument('urn:x', 'Sender', 'NoSuchEntity', 'gone', 'r')) as {
      ErrorResponse: { Error: { Type: string; Code: string }; RequestId: string };
    };
    expect(query.ErrorResponse.Error).toMatchObject({ Type: 'Sender', Code: 'NoSuchEntity' });
  });
});
