import { Command, CommanderError, Help } from 'commander';
import type { CliIo } from './io.js';
import { ExitCode, UprootError, formatError } from '../errors/index.js';
import { VERSION } from '../version.js';
import { givenFlags, hintCommands, type HintCommands } from './hint-command.js';
import { renderDocument } from './output.js';
import type { Clock } from '../clock/index.js';

/**
 * A command module adds itself to the program. `run` wraps its action so that the returned exit code (or a
 * thrown error) reaches main.ts, the only place that sets process.exitCode.
 */
export interface CommandContext {
  readonly io: CliIo;
  /** How the user called uproot: `uproot`, or `kubectl uproot` for the kubectl plugin. */
  readonly programName: string;
  /** The runnable next-step commands of the running command (its target flags repeated, quoted). */
  hints(): HintCommands;
  /** Wraps an action: records its exit code; errors are rendered and mapped to their exit code. */
  run<A extends unknown[]>(action: (...args: A) => Promise<number | void>): (...args: A) => Promise<void>;
}

export type CommandRegistrar = (program: Command, ctx: CommandContext) => void;

/**
 * A top-level command whose module is imported only when it runs (or its own help is asked for): `uproot
 * --version` and `uproot --help` then load no toolkit, no AWS SDK and no sandbox. `uproot --help` lists it
 * from `name`, `description` and `options`; a unit test keeps them equal to what the module registers.
 */
export interface LazyCommand {
  readonly name: string;
  readonly description: string;
  /** Whether the command itself takes options (`uproot --help` then lists it as `name [options]`). */
  readonly options: boolean;
  load(): Promise<CommandRegistrar>;
}

const registrars: (CommandRegistrar | LazyCommand)[] = [];

/** Called by src/cli/commands/index.ts (lazily loaded commands) and by tests (a registrar). */
export function registerCommands(...entries: (CommandRegistrar | LazyCommand)[]): void {
  registrars.push(...entries);
}

/** What has been registered, in order (for tests). */
export function registeredCommands(): readonly (CommandRegistrar | LazyCommand)[] {
  return registrars;
}

/** The top-level command argv names (`uproot help plan` names plan); undefined for `--version`, `--help`. */
export function invokedCommand(argv: readonly string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/** Commands that run a twin on its own clock: they never follow UPROOT_CLOCK_URL. */
const OWN_CLOCK_COMMANDS = new Set(['sandbox', 'demo']);

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const programName = io.programName ?? 'uproot';
  let hints = hintCommands(programName, []);
  let runIo = io;
  let followed: (Clock & { close(): void }) | undefined;
  const invoked = invokedCommand(argv);
  const ctx: CommandContext = {
    get io() {
      return runIo;
    },
    programName,
    hints: () => hints,
    run:
      (action) =>
      async (...args) => {
        // Commander passes the command last: its flags are what every hint of this run repeats.
        const cmd = args.at(-1);
        if (cmd instanceof Command) hints = hintCommands(programName, givenFlags(cmd));
        // A rehearsal's twin runs sped up: the command then waits and judges leases on its clock (decision 0034).
        // Loaded only then: `--version` and the commands' start stay free of the toolkit (startup budget).
        if (io.clock === undefined && io.env.UPROOT_CLOCK_URL && !OWN_CLOCK_COMMANDS.has(invoked ?? '')) {
          const { clockFromEnvironment } = await import('../toolkit/followed-clock.js');
          followed = await clockFromEnvironment(io.env);
          if (followed) runIo = { ...io, clock: followed };
        }
        const result = await action(...args);
        if (typeof result === 'number') exitCode = result;
      },
  };
  const program = new Command(programName)
    .description(
      'Move a Kubernetes cluster on AWS from the in-tree cloud provider to the aws-cloud-controller-manager, safely.',
    )
    .version(VERSION, '--version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .showHelpAfterError('(run with --help for usage)')
    .allowExcessArguments(false);
  try {
    await register(program, ctx, invoked);
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error, io, requestedDocument(argv), hints);
  } finally {
    followed?.close();
  }
}

/**
 * The document form the command line asks for (`-o json`, `--output=yaml`, `-ojson`), read from argv so that
 * an error thrown before or during parsing still answers in it.
 */
export function requestedDocument(argv: readonly string[]): 'json' | 'yaml' | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '-o' || arg === '--output') value = argv[i + 1];
    else if (arg.startsWith('--output=')) value = arg.slice('--output='.length);
    else if (/^-o[a-z]/.test(arg)) value = arg.slice(2).replace(/^=/, '');
  }
  return value === 'json' || value === 'yaml' ? value : undefined;
}

/** An error as a document on stdout (`-o json|yaml`): its code, message, location, hint and the exit code. */
export function errorDocument(
  error: { code: string; message: string; source?: string; location?: unknown; hint?: string | undefined },
  exitCode: number,
): unknown {
  return {
    schemaVersion: 'uproot.dev/error/v1',
    error: {
      code: error.code,
      message: error.message,
      ...(error.source ? { source: error.source } : {}),
      ...(error.location ? { location: error.location } : {}),
      ...(error.hint ? { hint: error.hint } : {}),
    },
    exitCode,
  };
}

/** Registers every command: the invoked one from its module, the others by name for the help listing. */
async function register(program: Command, ctx: CommandContext, invoked: string | undefined): Promise<void> {
  const listed = new Map<Command, string>();
  for (const entry of registrars) {
    if (typeof entry === 'function') entry(program, ctx);
    else if (entry.name === invoked) (await entry.load())(program, ctx);
    else {
      const stub = program.command(entry.name).description(entry.description);
      listed.set(stub, `${entry.name}${entry.options ? ' [options]' : ''}`);
    }
  }
  if (listed.size > 0) {
    const help = new Help();
    program.configureHelp({ subcommandTerm: (cmd) => listed.get(cmd) ?? help.subcommandTerm(cmd) });
  }
}

/**
 * Renders an error on stderr for a person (its hint runnable as printed) and, with `document`
 * (`-o json|yaml`), also as a document on stdout for a program, which then always gets one document there.
 */
export function reportError(
  error: unknown,
  io: CliIo,
  document?: 'json' | 'yaml',
  hints?: HintCommands,
): number {
  const emit = (doc: unknown): void => {
    if (document) io.stdout(renderDocument(doc, document));
  };
  if (error instanceof CommanderError) {
    // --help and --version "fail" with exit code 0; usage errors are the user's input.
    if (error.exitCode === 0) return ExitCode.ok;
    emit(
      errorDocument(
        { code: 'UP-CLI-USAGE', message: error.message.replace(/^error: /, ''), source: 'user' },
        ExitCode.badInput,
      ),
    );
    return ExitCode.badInput;
  }
  if (UprootError.is(error)) {
    const text = formatError(error);
    io.stderr(`${hints ? hints.runnable(text) : text}\n`);
    if (error.source === 'uproot') io.stderr(reportBugHint(error));
    emit(errorDocument(error, error.exitCode));
    return error.exitCode;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr(`error UP-INTERNAL: ${message}\n${reportBugHint(undefined)}`);
  const brief = error instanceof Error ? error.message : String(error);
  emit(errorDocument({ code: 'UP-INTERNAL', message: brief, source: 'uproot' }, ExitCode.internal));
  return ExitCode.internal;
}

function reportBugHint(_error: UprootError | undefined): string {
  return 'This is a bug in uproot. Please report it with the command you ran (paths and secrets removed).\n';
}
