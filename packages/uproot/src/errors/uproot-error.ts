import { ExitCode } from './exit-codes.js';

/** Who has to act: the user (fix the input or the cluster), uproot (a bug), or the environment (network, access). */
export type ErrorSource = 'user' | 'uproot' | 'environment';

/** Where in a user's input the problem is. Every field is optional; fill in what is known. */
export interface ErrorLocation {
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  /** A field path such as `spec.rkeConfig.machineGlobalConfig.cloud-provider-name`. */
  readonly field?: string;
  /** The offending value, already safe to print (never a secret). */
  readonly value?: unknown;
}

export interface UprootErrorOptions {
  readonly source?: ErrorSource;
  readonly location?: ErrorLocation;
  /** What the user should do about it. */
  readonly hint?: string;
  readonly cause?: unknown;
  readonly exitCode?: ExitCode;
}

const BRAND = Symbol.for('uproot.UprootError');

/**
 * The one error type uproot throws on purpose. `code` is stable (documented in docs/errors.md) and safe to
 * match on; `source` says whether the user or uproot is at fault. Checked with a brand, not instanceof, so
 * it survives two copies of the package.
 */
export class UprootError extends Error {
  readonly code: string;
  readonly source: ErrorSource;
  readonly location: ErrorLocation | undefined;
  readonly hint: string | undefined;
  readonly exitCode: ExitCode;

  constructor(code: string, message: string, options: UprootErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UprootError';
    this.code = code;
    this.source = options.source ?? 'user';
    this.location = options.location;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? (this.source === 'uproot' ? ExitCode.internal : ExitCode.badInput);
    Object.defineProperty(this, BRAND, { value: true });
  }

  static is(value: unknown): value is UprootError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** The user's input is wrong: a malformed file, a bad flag, contradictory settings. Exit 2. */
export class InputError extends UprootError {
  constructor(code: string, message: string, options: Omit<UprootErrorOptions, 'source'> = {}) {
    super(code, message, { ...options, source: 'user', exitCode: options.exitCode ?? ExitCode.badInput });
    this.name = 'InputError';
  }
}

/** uproot could not reach or was refused by the cluster or AWS. Exit 2. */
export class AccessError extends UprootError {
  constructor(code: string, message: string, options: Omit<UprootErrorOptions, 'source'> = {}) {
    super(code, message, {
      ...options,
      source: 'environment',
      exitCode: options.exitCode ?? ExitCode.badInput,
    });
    this.name = 'AccessError';
  }
}

/** A verification gate did not hold before its deadline. Exit 1. */
export class GateError extends UprootError {
  constructor(code: string, message: string, options: Omit<UprootErrorOptions, 'source' | 'exitCode'> = {}) {
    super(code, message, { ...options, source: 'environment', exitCode: ExitCode.failed });
    this.name = 'GateError';
  }
}

/** Another run holds the migration lock. Exit 2. */
export class LockError extends UprootError {
  constructor(code: string, message: string, options: Omit<UprootErrorOptions, 'source'> = {}) {
    super(code, message, {
      ...options,
      source: 'environment',
      exitCode: options.exitCode ?? ExitCode.badInput,
    });
    this.name = 'LockError';
  }
}

/** The user declined or interrupted. Exit 130. */
export class AbortError extends UprootError {
  constructor(message: string, options: Omit<UprootErrorOptions, 'source' | 'exitCode'> = {}) {
    super('UP-ABORTED', message, { ...options, source: 'user', exitCode: ExitCode.aborted });
    this.name = 'AbortError';
  }
}

/** Something that should not happen. Exit 3, and the CLI asks for a bug report. */
export class InternalError extends UprootError {
  constructor(message: string, options: Omit<UprootErrorOptions, 'source' | 'exitCode'> = {}) {
    super('UP-INTERNAL', message, { ...options, source: 'uproot', exitCode: ExitCode.internal });
    this.name = 'InternalError';
  }
}

/** Narrowing helper whose failure is by definition a bug. */
export function assertNever(value: never, what: string): never {
  throw new InternalError(
    `unexpected ${what}: ${JSON.stringify(value)}; this should not happen, please report it`,
  );
}

/** Renders an error for a person: code, message, where, and what to do. Never includes a stack for user errors. */
export function formatError(error: UprootError): string {
  const lines = [`error ${error.code}: ${error.message}`];
  const loc = error.location;
  if (loc) {
    const where = [
      loc.file
        ? `${loc.file}${loc.line ? `:${loc.line}${loc.column ? `:${loc.column}` : ''}` : ''}`
        : undefined,
      loc.field ? `field ${loc.field}` : undefined,
      loc.value !== undefined ? `value ${JSON.stringify(loc.value)}` : undefined,
    ].filter(Boolean);
    if (where.length > 0) lines.push(`  at ${where.join(', ')}`);
  }
  if (error.hint) lines.push(`  fix: ${error.hint}`);
  return lines.join('\n');
}
