import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback HTTP listener that can be closed promptly even with keep-alive connections open. */
export interface Listener {
  readonly server: http.Server;
  readonly port: number;
  close(): Promise<void>;
}

export type RequestHandler = (
  request: http.IncomingMessage,
  body: string,
  response: http.ServerResponse,
) => Promise<void>;

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** An HTTP server (not yet listening) that reads each body, then calls the handler. */
export function createHandlerServer(handler: RequestHandler): http.Server {
  const server = http.createServer({ noDelay: true }, (request, response) => {
    // A client that hangs up mid-request is not the emulator's problem; never let it become an uncaught error.
    request.on('error', () => request.destroy());
    response.on('error', () => response.destroy());
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        response.writeHead(413).end();
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (response.writableEnded) return;
      handler(request, Buffer.concat(chunks).toString('utf8'), response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`sandbox error: ${error instanceof Error ? error.message : String(error)}`);
      });
    });
  });
  server.keepAliveTimeout = 5_000;
  return server;
}

export async function listen(host: string, port: number, handler: RequestHandler): Promise<Listener> {
  const server = createHandlerServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function send(
  response: http.ServerResponse,
  status: number,
  body: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  response.writeHead(status, { 'content-length': Buffer.byteLength(body), ...headers });
  response.end(body);
}
