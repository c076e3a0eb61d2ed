/**
 * uproot's exit codes. Only the CLI entry (src/cli/main.ts) turns these into a process exit code.
 * Documented in README.md ("Exit codes"); keep both in step.
 */
export const ExitCode = {
  /** The command did what it was asked and found nothing wrong, or the person declined at the prompt (nothing done). */
  ok: 0,
  /** The command ran and found something failing (a failed check, a gate that did not pass, verify found a problem). */
  failed: 1,
  /** The command could not run on this input: bad flags, a malformed file, no access. Nothing was written. */
  badInput: 2,
  /** A bug in uproot. Please report it. */
  internal: 3,
  /** Interrupted (Ctrl-C, SIGTERM). Resumable where the command supports it. */
  aborted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
