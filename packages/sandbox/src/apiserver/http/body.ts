import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { badRequest, requestTooLarge, unsupportedMediaType } from '../status/api-status-error.js';
import { decodeProtobufObject } from './protobuf.js';

/** The API server's request size limit (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw requestTooLarge(limit);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const YAML_TYPES = new Set(['application/yaml', 'application/apply-patch+yaml', 'application/x-yaml']);
const JSON_TYPES = new Set([
  'application/json',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  '',
]);

/** Decodes a request body: JSON, YAML (apply patches, uploads), or protobuf for the kinds protobuf.ts knows. */
export function decodeBody(body: Buffer, contentType: string | undefined): unknown {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (media === PROTOBUF) return decodeProtobufObject(body);
  const text = body.toString('utf8');
  if (text.trim() === '') throw badRequest('the request body is empty');
  if (YAML_TYPES.has(media)) {
    try {
      return parseYaml(text) as unknown;
    } catch (e) {
      throw badRequest(`error decoding YAML: ${(e as Error).message}`);
    }
  }
  if (!JSON_TYPES.has(media)) {
    throw unsupportedMediaType(['application/json', 'application/yaml']);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw badRequest(`error decoding JSON body: ${(e as Error).message}`);
  }
}
