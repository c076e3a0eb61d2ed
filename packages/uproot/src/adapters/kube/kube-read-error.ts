/**
 * How a failed read becomes a reason a check can skip with ("forbidden: cannot list storageclasses"), and
 * which failures mean the cluster cannot be used at all (unreachable, credentials rejected: exit 2).
 */
import { kubeAccessError } from './kubeconfig.js';

export interface ApiFailure {
  readonly code?: number;
  readonly message: string;
}

export function apiFailure(error: unknown): ApiFailure {
  const e = error as { code?: unknown; body?: unknown; message?: unknown };
  const code = typeof e.code === 'number' ? e.code : undefined;
  let message = typeof e.message === 'string' ? e.message : String(error);
  if (code !== undefined) {
    const body = typeof e.body === 'string' ? safeParse(e.body) : e.body;
    const status = (body as { message?: unknown } | undefined)?.message;
    message = typeof status === 'string' ? status : `HTTP ${code}`;
  }
  return code === undefined ? { message } : { code, message };
}

/** A short reason for a check's `skip`: forbidden, not found, or the error. */
export function skipReason(error: unknown, verb: string, resource: string): string {
  const f = apiFailure(error);
  if (f.code === 403) return `forbidden: cannot ${verb} ${resource}`;
  if (f.code === 404) return `not found: ${resource}`;
  return `${verb} ${resource} failed: ${f.message}`;
}

/** Errors after which nothing else can be read: no connection, or the credentials were rejected. */
export function isFatal(error: unknown): boolean {
  const f = apiFailure(error);
  return f.code === undefined || f.code === 401;
}

export function fatalError(error: unknown, what: string): Error {
  return kubeAccessError(error, what);
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
