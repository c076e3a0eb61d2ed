/**
 * `write-file` / `delete-file` on the control-plane nodes. kubeadm-style static pods: the step's files (kube-controller-manager.yaml, the leader-migration config)
 * reach each control-plane node either through a directory the user distributes (`--manifests-out DIR`,
 * written as DIR/<node>/<path>, then a person confirms they are in place) or through a per-node command
 * (`--node-command 'ssh {node} sudo tee {path}'`, the content on stdin). The kubelet then restarts the static
 * pods; with a node command, each node's manager is waited for before the next node (static-pod-wait.ts),
 * and the control-plane-flags gate checks them all. Node files are not read back, so they are undone
 * with the plan's own undo changes (the previous content, from planning time).
 */
import { join } from 'node:path';
import type { Change } from '../../core/plan/plan-types.js';
import { ExitCode, InputError, UprootError } from '../../errors/index.js';
import type { CommandRunner, FileStore } from '../ports.js';
import type { ChangeOutcome } from '../run-plan.js';
import type { ApplyContext, ChangeApplier } from './applier-types.js';
import { describeCommand, renderCommand, type CommandTemplate } from './command-template.js';
import { confirmManual } from './manual.js';
import type { ClusterApplierDeps } from './object-changes.js';
import {
  differingNodes,
  managerManifest,
  waitForStaticPod,
  type StaticPodWaitDeps,
} from './static-pod-wait.js';

type NodeFile = Extract<Change, { type: 'write-file' | 'delete-file' }>;

export interface NodeFileDeps extends Pick<ClusterApplierDeps, 'confirm' | 'manualDone' | 'notify'> {
  /** Names of the control-plane nodes (for changes without a node). */
  readonly controlPlaneNodes: () => Promise<string[]>;
  readonly manifestsOut?: string;
  readonly nodeCommand?: CommandTemplate;
  readonly nodeDeleteCommand?: CommandTemplate;
  readonly runner: CommandRunner;
  readonly files: FileStore;
  readonly timeoutMs: number;
  /** Waits for a node's manager to run a written manifest before the next node (node-by-node roll). */
  readonly staticPods?: StaticPodWaitDeps;
}

export function outPath(dir: string, node: string, path: string): string {
  return join(dir, node, path.replace(/^\/+/, ''));
}

export function nodeFileApplier(deps: NodeFileDeps): ChangeApplier<NodeFile> {
  const nodesOf = async (change: NodeFile): Promise<string[]> =>
    change.node ? [change.node] : deps.controlPlaneNodes();

  const runOnNodes = async (
    template: CommandTemplate,
    change: NodeFile,
    nodes: string[],
    stdin?: string,
  ): Promise<void> => {
    const manager = change.type === 'write-file' ? managerManifest(change.content) : undefined;
    if (manager && deps.staticPods) {
      const differ = differingNodes(await deps.staticPods.pods(manager.component), nodes, manager.flags);
      if (differ) {
        throw new UprootError(
          'UP-KUBEADM-MANIFESTS-DIFFER',
          `${manager.component} runs with different flags on the control-plane nodes, and uproot would write one ${change.path} to all of them:\n  ${differ.join('\n  ')}`,
          {
            source: 'environment',
            exitCode: ExitCode.failed,
            hint: `make ${change.path} the same on every control-plane node (kubeadm writes it so), then \`uproot migrate --resume\`; or write the files yourself with --manifests-out`,
          },
        );
      }
    }
    for (const node of nodes) {
      const argv = renderCommand(template, { node, path: change.path });
      const result = await deps.runner.run({
        file: argv[0]!,
        args: argv.slice(1),
        timeoutMs: deps.timeoutMs,
        ...(stdin !== undefined ? { stdin } : {}),
      });
      if (result.type === 'exited' && result.exitCode === 0) {
        if (manager && deps.staticPods) await waitForStaticPod(deps.staticPods, node, change.path, manager);
        continue;
      }
      const detail =
        result.type === 'not-started'
          ? result.message
          : result.stderr.trim().split('\n').slice(-5).join('\n');
      throw new UprootError(
        'UP-NODE-COMMAND-FAILED',
        `${describeCommand(argv[0]!, argv.slice(1))} failed on node ${node}: ${detail}`,
        {
          source: 'environment',
          exitCode: ExitCode.failed,
          hint: 'fix access to the node (try the command by hand), then run `uproot migrate --resume`; files already written are written again, which is harmless',
        },
      );
    }
  };

  const apply = async (change: NodeFile, ctx: ApplyContext): Promise<ChangeOutcome> => {
    const nodes = await nodesOf(change);
    if (nodes.length === 0) {
      throw new UprootError('UP-KUBEADM-NO-NODES', 'no control-plane node found to put the file on', {
        source: 'environment',
        exitCode: ExitCode.failed,
        hint: 'check the control-plane node labels (kubectl get nodes -l node-role.kubernetes.io/control-plane)',
      });
    }
    if (change.type === 'write-file' && deps.nodeCommand) {
      await runOnNodes(deps.nodeCommand, change, nodes, change.content);
      return {
        type: 'done',
        record: { outcome: 'changed', nodes, detail: `wrote ${change.path} on ${nodes.length} node(s)` },
      };
    }
    if (change.type === 'delete-file' && deps.nodeDeleteCommand) {
      await runOnNodes(deps.nodeDeleteCommand, change, nodes);
      return {
        type: 'done',
        record: { outcome: 'changed', nodes, detail: `deleted ${change.path} on ${nodes.length} node(s)` },
      };
    }
    if (change.type === 'write-file' && deps.manifestsOut) {
      const written = nodes.map((node) => outPath(deps.manifestsOut!, node, change.path));
      for (const file of written) deps.files.writeAtomic(file, change.content);
      return confirmManual(
        deps,
        ctx,
        `Copy these files to their nodes, then confirm:\n${nodes.map((n, i) => `  ${written[i]} → ${n}:${change.path}`).join('\n')}`,
      );
    }
    if (change.type === 'delete-file' && (deps.manifestsOut || deps.nodeCommand)) {
      return confirmManual(deps, ctx, `Delete ${change.path} on ${nodes.join(', ')}, then confirm.`);
    }
    throw new InputError(
      'UP-KUBEADM-NO-TRANSPORT',
      `step ${ctx.step.id} writes ${change.path} on the control-plane nodes, and uproot has no way to reach them`,
      {
        location: { field: '--manifests-out / --node-command' },
        hint: "pass --manifests-out DIR (you copy the files) or --node-command 'ssh {node} sudo tee {path}'",
      },
    );
  };

  return {
    capture: async () => ({
      type: 'none',
      reason: 'node files are not read back; the plan\u2019s undo changes restore them',
    }),
    apply: (change, _backup, ctx) => apply(change, ctx),
    undo: async () => ({
      type: 'nothing-to-undo',
      detail: 'node files are restored by the plan\u2019s undo changes',
    }),
  };
}
