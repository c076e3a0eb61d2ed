/**
 * `@uproot/sandbox/cli`: the sandbox's commands, `uproot demo` and `uproot sandbox`, which uproot's CLI loads
 * only when one of them runs (uproot's src/cli/sandbox-commands.ts declares what it expects: SandboxCommands).
 */
import type { SandboxCommands } from 'uproot/cli';
import { registerDemoCommand } from './demo.js';
import { registerSandboxCommands } from './sandbox.js';

export { registerDemoCommand, registerSandboxCommands };

// The shape uproot's CLI loads; a mismatch fails this package's type-check, not a user's run.
const commands: SandboxCommands = { registerDemoCommand, registerSandboxCommands };
void commands;
