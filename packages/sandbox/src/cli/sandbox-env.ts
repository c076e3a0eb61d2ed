import { resolve } from 'node:path';
import type { Command } from 'commander';
import { type CommandContext, parseOutputFormat, renderDocument } from 'uproot/cli';
import { ExitCode, InputError } from 'uproot';
import { nodeEnvironment, NOT_ON_A_NODE, shellExports } from '../aws/index.js';
import { readSandboxState, SANDBOX_STATE_FILE, type SandboxNode } from '../twin/index.js';

/**
 * `uproot sandbox env --node NAME`: the environment a process on one of the twin's nodes has, as shell
 * exports (`eval "$(uproot sandbox env --node NAME)"`) or `-o json`: instance metadata at the root of the
 * node's own endpoint, the region, the AWS endpoint, and no static keys (on EC2 they come from the instance
 * role through instance metadata). The `sandbox` group (src/cli/commands/sandbox.ts) calls this.
 */
export function addEnvCommand(sandbox: Command, ctx: CommandContext, defaultDir: string): void {
  sandbox
    .command('env')
    .description(
      "Print the environment of a process on one of the twin's nodes (its instance metadata endpoint)",
    )
    .requiredOption('--node <name>', 'the node (its Kubernetes name or its instance id)')
    .option('--dir <dir>', 'the directory the twin was started with', defaultDir)
    .option('-o, --output <format>', 'text (shell exports) or json', 'text')
    .action(
      ctx.run(async (opts: { node: string; dir: string; output: string }) => {
        const format = parseOutputFormat(opts.output, ['text', 'json']);
        const dir = resolve(ctx.io.cwd, opts.dir);
        const state = readSandboxState(dir);
        const node = findNode(state.nodes, opts.node, resolve(dir, SANDBOX_STATE_FILE));
        const env = nodeEnvironment(
          { url: state.urls.aws, region: state.region ?? 'us-east-1' },
          node.imdsEndpoint,
        );
        if (format === 'json') {
          ctx.io.stdout(renderDocument(env, 'json'));
          return ExitCode.ok;
        }
        ctx.io.stdout(
          shellExports(env, {
            comment: [
              `A process on node ${node.name} (instance ${node.instanceId}): instance metadata at the root of its own`,
              "endpoint, and no keys: the SDK's default chain takes the instance role's credentials from there.",
            ],
            unset: NOT_ON_A_NODE,
          }),
        );
        return ExitCode.ok;
      }),
    );
}

function findNode(nodes: readonly SandboxNode[], wanted: string, file: string): SandboxNode {
  const found = nodes.find((n) => n.name === wanted || n.instanceId === wanted);
  if (found) return found;
  const known = nodes.map((n) => n.name);
  throw new InputError('UP-SANDBOX-NODE', `the sandbox has no node "${wanted}"`, {
    location: { file, field: 'nodes', value: wanted },
    hint:
      known.length > 0
        ? `use one of: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ` (and ${known.length - 10} more)` : ''}`
        : 'this sandbox has no nodes (scenario empty), or was started by an older uproot: start it again',
  });
}
