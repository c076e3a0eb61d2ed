import type { Clock } from '../clock/index.js';

/**
 * Everything the CLI prints or reads goes through this host, so commands are testable in-process and the
 * library never touches process.stdout directly.
 */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when stdout is a terminal a person is looking at (progress displays and prompts only then). */
  readonly interactive: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Asks a yes/no question on the terminal. Only called when `interactive`. */
  confirm?(question: string): Promise<boolean>;
  /** Aborted on Ctrl-C; long-running commands stop cleanly and leave a resumable state. */
  readonly signal?: AbortSignal;
  /** The name the user ran: `kubectl uproot` when kubectl runs the plugin (default `uproot`). */
  readonly programName?: string;
  /** What commands that wait (the sandbox daemon's supervision) wait on; default the real clock. */
  readonly clock?: Clock;
}

/** A recording host for tests: collects output, never interactive. */
export function recordingIo(
  options: { env?: Record<string, string | undefined>; cwd?: string; answers?: boolean[] } = {},
): CliIo & { out: string[]; err: string[]; readonly stdoutText: string; readonly stderrText: string } {
  const out: string[] = [];
  const err: string[] = [];
  const answers = [...(options.answers ?? [])];
  return {
    out,
    err,
    get stdoutText() {
      return out.join('');
    },
    get stderrText() {
      return err.join('');
    },
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    interactive: answers.length > 0,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    confirm: async () => answers.shift() ?? false,
  };
}
