import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { InputError } from 'uproot';

/**
 * The twin's control endpoint: a small loopback HTTP server that `uproot sandbox ledger|status|rke-up|down`
 * talk to, protected by a bearer token (kept in DIR/sandbox.json, mode 0600).
 *
 *   GET  /healthz            ok (no token needed)
 *   GET  /v1/clock           {"nowMs": the twin's time} (no token needed: the time is no secret, and the
 *                            CLI polls it every 20 ms when UPROOT_CLOCK_URL names it, decision 0034)
 *   GET  /v1/status          the twin's status
 *   GET  /v1/ledger          per-controller ownership (overlapSeconds, maxGapSeconds) and detail
 *   POST /v1/rke-up          body {"config": "<cluster.yml text>", "file": "<path>"}; answers when done
 *   POST /v1/shutdown        stops the twin
 */

export interface ControlHandlers {
  /** The twin's clock, in milliseconds since the epoch. */
  now(): number;
  status(): unknown;
  ledger(): unknown;
  rkeUp(config: string, file: string): Promise<{ ok: boolean; reason?: string; log: readonly string[] }>;
  shutdown(): void;
}

export interface ControlServer {
  readonly url: string;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;

/** The path of the twin's clock on the control endpoint (what UPROOT_CLOCK_URL names). */
export const CLOCK_PATH = '/v1/clock';

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function authorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) {
      throw new InputError('UP-SANDBOX-CONTROL', 'request body too large', {
        hint: `send at most ${MAX_BODY} bytes`,
      });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startControlServer(token: string, handlers: ControlHandlers): Promise<ControlServer> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://control').pathname;
      if (path === '/healthz') return send(res, 200, { ok: true });
      if (req.method === 'GET' && path === CLOCK_PATH) return send(res, 200, { nowMs: handlers.now() });
      if (!authorized(req, token)) return send(res, 401, { error: 'unauthorized' });
      try {
        if (req.method === 'GET' && path === '/v1/status') return send(res, 200, handlers.status());
        if (req.method === 'GET' && path === '/v1/ledger') return send(res, 200, handlers.ledger());
        if (req.method === 'POST' && path === '/v1/rke-up') {
          const body = JSON.parse(await readBody(req)) as { config?: unknown; file?: unknown };
          if (typeof body.config !== 'string')
            return send(res, 400, { error: 'config (the cluster.yml text) is required' });
          const result = await handlers.rkeUp(
            body.config,
            typeof body.file === 'string' ? body.file : 'cluster.yml',
          );
          return send(res, 200, result);
        }
        if (req.method === 'POST' && path === '/v1/shutdown') {
          send(res, 202, { ok: true });
          handlers.shutdown();
          return undefined;
        }
        return send(res, 404, { error: `no such endpoint: ${req.method ?? ''} ${path}` });
      } catch (error) {
        return send(res, 500, { error: error instanceof Error ? error.message : String(error) });
      }
    })();
  });
  // rke-up answers only when the rollout is done, which can take minutes in real time.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** A client for the endpoint (the CLI's side). */
export async function callControl(
  url: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, body: parsed };
}
