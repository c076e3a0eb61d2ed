/**
 * The demo's per-node command for a kubeadm twin: `uproot-twin-node write {node} {path}` (content on stdin)
 * and `uproot-twin-node delete {node} {path}` act on the machine's folder DIR/nodes/<node>/<path>, which its
 * kubelet watches, the way `ssh {node} sudo tee {path}` acts on a real machine. Every other command goes to
 * the next runner.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { CommandResult, CommandRunner, CommandSpec } from 'uproot';

/** The `--node-command` program the demo passes; it names no real program. */
export const TWIN_NODE_BINARY = 'uproot-twin-node';
export const TWIN_NODE_COMMAND = `${TWIN_NODE_BINARY} write {node} {path}`;
export const TWIN_NODE_DELETE_COMMAND = `${TWIN_NODE_BINARY} delete {node} {path}`;

export function twinNodeRunner(nodesDir: string, next: CommandRunner): CommandRunner {
  return {
    run: async (spec: CommandSpec, signal?: AbortSignal): Promise<CommandResult> => {
      if (spec.file !== TWIN_NODE_BINARY) return next.run(spec, signal);
      const [verb, node, path] = spec.args;
      const root = resolve(nodesDir, node ?? '');
      const target = resolve(root, `.${path ?? ''}`);
      if (
        !node ||
        !path ||
        (verb !== 'write' && verb !== 'delete') ||
        relative(root, target).startsWith('..')
      ) {
        return {
          type: 'not-started',
          message: `${TWIN_NODE_BINARY}: expected "write|delete NODE /PATH", got ${spec.args.join(' ')}`,
        };
      }
      if (verb === 'write') {
        writeWhole(target, spec.stdin ?? '');
      } else rmSync(target, { force: true });
      return { type: 'exited', exitCode: 0, stdout: '', stderr: '', durationMs: 0 };
    },
  };
}

/**
 * Writes the file whole, through a temporary file renamed over it, so the twin's kubelet never reads half a
 * manifest. (No fsync: the twin's machines are rebuilt from their scenario, not recovered after a crash.)
 */
function writeWhole(target: string, content: string): void {
  mkdirSync(dirname(target), { recursive: true });
  const temporary = join(dirname(target), `.${basename(target)}.twin-tmp`);
  writeFileSync(temporary, content);
  renameSync(temporary, target);
}
