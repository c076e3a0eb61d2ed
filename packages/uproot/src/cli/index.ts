/**
 * `uproot/cli`: the command-line program as a module, for packages that add commands to it or run it in
 * their own process. The sandbox (packages/sandbox) is its one user: its `demo` and `sandbox` commands render
 * with the same kit as uproot's own, and a fleet Job's simulated pod runs `runUprootCli` as the image's
 * `uproot` command. Importing this entry registers nothing: the sandbox's command modules import it while
 * uproot's CLI is loading them.
 *
 * Checked by an API report (etc/uproot-cli.api.md).
 */
import { runCli } from './program.js';
import type { CliIo } from './io.js';

export type { CommandContext, CommandRegistrar } from './program.js';
export type { CliIo } from './io.js';
export type { HintCommands } from './hint-command.js';
export { parseOutputFormat, renderDocument, type OutputFormat } from './output.js';
export { hostOf } from './command-options.js';
export { renderEvent } from './command-kit.js';
export { isSingleExecutable } from './single-executable.js';
export { verifyText } from './commands/verify.js';
export { migrateTable, preflightTable, statusTable } from './commands/fleet-render.js';
export { SANDBOX_CLI, type SandboxCommands } from './sandbox-commands.js';

/** uproot's command line with every built-in command, in this process: what src/cli/main.ts runs. */
export async function runUprootCli(argv: readonly string[], io: CliIo): Promise<number> {
  // A module runs once, so the commands are registered once however often this is called.
  await import('./commands/index.js');
  return runCli(argv, io);
}
