import { randomBytes } from 'node:crypto';
import { startControlServer, type ControlHandlers, type ControlServer } from './control-server.js';
import type { SandboxState } from './sandbox-state.js';

/** The control endpoint with a fresh bearer token (DIR/sandbox.json keeps it for the CLI). */
export async function startTokenControlServer(
  handlers: ControlHandlers,
): Promise<ControlServer & { readonly token: string }> {
  const token = randomBytes(24).toString('hex');
  const control = await startControlServer(token, handlers);
  return { url: control.url, token, close: () => control.close() };
}

/**
 * Serves a twin (or a fleet) for a person: `ready` once it is up, then waits until the person's signal aborts
 * or `uproot sandbox down` asks (`stop`, the control endpoint's shutdown), and always ends with `close`.
 */
export async function serveUntilStopped(options: {
  readonly signal: AbortSignal | undefined;
  readonly stop: AbortSignal;
  readonly ready: () => void;
  readonly close: () => Promise<void>;
}): Promise<void> {
  const { signal, stop } = options;
  try {
    options.ready();
    await new Promise<void>((resolve) => {
      if (signal?.aborted || stop.aborted) return resolve();
      signal?.addEventListener('abort', () => resolve(), { once: true });
      stop.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    await options.close();
  }
}

/** What serving a twin or a fleet for a person takes (`uproot sandbox up`). */
export interface ServeOptions<Served> {
  readonly dir: string;
  readonly timeScale: number;
  readonly nodes?: number;
  readonly signal: AbortSignal | undefined;
  readonly log: (line: string) => void;
  readonly pid: number;
  /** Called once it is up and sandbox.json is written. */
  readonly onReady: (state: SandboxState, served: Served) => void;
}
