import { Command, CommanderError } from 'commander';
import type { CliIo } from './io.js';
import { ExitCode, UprootError, formatError } from '../errors/index.js';
import { VERSION } from '../version.js';

/**
 * A command module adds itself to the program. `run` wraps its action so that the returned exit code (or a
 * thrown error) reaches main.ts, the only place that sets process.exitCode.
 */
export interface CommandContext {
  readonly io: CliIo;
  /** Wraps an action: records its exit code; errors are rendered and mapped to their exit code. */
  run<A extends unknown[]>(action: (...args: A) => Promise<number | void>): (...args: A) => Promise<void>;
}

export type CommandRegistrar = (program: Command, ctx: CommandContext) => void;

const registrars: CommandRegistrar[] = [];

/** Called by src/cli/commands/index.ts for every command module. */
export function registerCommands(...fns: CommandRegistrar[]): void {
  registrars.push(...fns);
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const ctx: CommandContext = {
    io,
    run:
      (action) =>
      async (...args) => {
        const result = await action(...args);
        if (typeof result === 'number') exitCode = result;
      },
  };
  const program = new Command('uproot')
    .description(
      'Move a Kubernetes cluster on AWS from the in-tree cloud provider to the aws-cloud-controller-manager, safely.',
    )
    .version(VERSION, '--version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .showHelpAfterError('(run with --help for usage)')
    .allowExcessArguments(false);
  for (const register of registrars) register(program, ctx);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error, io);
  }
}

export function reportError(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    // --help and --version "fail" with exit code 0; usage errors are the user's input.
    if (error.exitCode === 0) return ExitCode.ok;
    return ExitCode.badInput;
  }
  if (UprootError.is(error)) {
    io.stderr(`${formatError(error)}\n`);
    if (error.source === 'uproot') io.stderr(reportBugHint(error));
    return error.exitCode;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr(`error UP-INTERNAL: ${message}\n${reportBugHint(undefined)}`);
  return ExitCode.internal;
}

function reportBugHint(_error: UprootError | undefined): string {
  return 'This is a bug in uproot. Please report it with the command you ran (paths and secrets removed).\n';
}
