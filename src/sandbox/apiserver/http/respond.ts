import type { ServerResponse } from 'node:http';
import type { ApiStatusError } from '../status/api-status-error.js';

const BASE_HEADERS = { 'Cache-Control': 'no-cache, private' } as const;

/** Writes a pre-serialised JSON body. */
export function sendJson(
  res: ServerResponse,
  code: number,
  json: string,
  contentType = 'application/json',
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(code, {
    ...BASE_HEADERS,
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(json),
    ...headers,
  });
  res.end(json);
}

export function sendStatus(res: ServerResponse, error: ApiStatusError): void {
  sendJson(res, error.status.code, JSON.stringify(error.status), 'application/json', error.headers);
}

export function sendText(res: ServerResponse, code: number, text: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(code, {
    ...BASE_HEADERS,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
