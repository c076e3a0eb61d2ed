import type { CommandRegistrar } from './program.js';
import { InputError } from '../errors/index.js';

/**
 * What the sandbox package gives the CLI (`@uproot/sandbox/cli`): the registrars of `uproot demo` and
 * `uproot sandbox`. The sandbox implements this interface (it imports it from `uproot/cli`); uproot only
 * declares it.
 */
export interface SandboxCommands {
  readonly registerDemoCommand: CommandRegistrar;
  readonly registerSandboxCommands: CommandRegistrar;
}

/**
 * The sandbox is its own workspace package (packages/sandbox) and depends on uproot, never the reverse
 * (docs/decisions/0019-sandbox-workspace-package.md). So its name is a constant, not a literal TypeScript
 * resolves when it builds uproot; scripts/build-binary.ts puts the literal back for esbuild, which bundles the
 * sandbox into the single executable.
 */
export const SANDBOX_CLI = '@uproot/sandbox/cli';

/** Loads the sandbox's commands when `uproot demo` or `uproot sandbox` runs (never for the other commands). */
export async function loadSandboxCommands(): Promise<SandboxCommands> {
  try {
    return (await import(SANDBOX_CLI)) as SandboxCommands;
  } catch (error) {
    const missing =
      (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' &&
      String(error).includes('@uproot/sandbox');
    if (!missing) throw error;
    throw new InputError(
      'UP-SANDBOX-NOT-INSTALLED',
      'the sandbox (uproot demo, uproot sandbox) is not installed',
      {
        hint: 'npm install @uproot/sandbox next to uproot, or use the single executable (kubectl-uproot), which carries it',
        cause: error,
      },
    );
  }
}
