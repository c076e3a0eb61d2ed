import type { ServerResponse } from 'node:http';
import type { ApiStatusError } from '../status/api-status-error.js';

const BASE_HEADERS = { 'Cache-Control': 'no-cache, private' } as const;

/** Writes a pre-serialised JSON body. */
export function sendJson(
  res: ServerResponse,
  code: number,
  json: string,
  contentType = 'application/json',
  headers: Readonly<Record<string, string | readonly string[]>> = {},
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

/**
 * `Warning: 299 - "<text>"` per warning (apimachinery pkg/util/net/http.go NewWarningHeader); Node joins
 * an array value into repeated headers.
 */
export function warningHeaders(warnings: readonly string[]): Record<string, string | string[]> {
  return warnings.length > 0 ? { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) } : {};
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
