/**
 * `write-file` / `delete-file` on the control-plane nodes. kubeadm-style static pods: the step's files (kube-controller-manager.yaml, the leader-migration config)
 * reach each control-plane node either through a directory the user distributes (`--manifests-out DIR`,
 * written as DIR/<node>/<path>, then a person confirms they are in place) or through a per-node command
 * (`--node-command 'ssh {node} sudo tee {path}'`, the content on stdin). The kubelet then restarts the static
 * pods; with a node command, each node's manager is waited for before the next node (static-pod-wait.ts),
 * and the control-plane-flags gate checks them all. A manager's manifest goes to the node whose manager
 * holds its lease last (roll-order.ts); with --manifests-out the instructions give that order. Node files
 * are not read back, so they are undone with the plan's own undo changes (the previous content, from
 * planning time).
 */
import { join } from 'node:path';
import { hostOfIdentity, namesHost } from '../../core/ownership/index.js';
import type { Change } from '../../core/model/plan-types.js';
import { ExitCode, InputError, UprootError } from '../../errors/index.js';
import type { LeaseFacts } from '../gates/gate-facts.js';
import { watchedLeases } from '../gates/gate-runner.js';
import { releaseLeasesHeldBy } from '../gates/lease-handoff.js';
import type { Journal } from '../journal/journal-schema.js';
import type { CommandRunner, FileStore, ObjectStore } from '../ports.js';
import type { ChangeOutcome } from '../run-plan.js';
import type { ApplyContext, ChangeApplier } from './applier-types.js';
import { describeCommand, renderCommand, type CommandTemplate } from './command-template.js';
import { confirmManual } from './manual.js';
import type { ClusterApplierDeps } from './object-changes.js';
import { leaseLive, rollOrder } from './roll-order.js';
import {
  differingNodes,
  managerManifest,
  staticPodCaughtUp,
  waitForHandover,
  waitForStaticPod,
  type ManagerManifest,
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
  /** The kube-system leases, to roll a manager's manifest to its leader's node last. */
  readonly leases?: () => Promise<LeaseFacts[]>;
  /** Where the leases are written: a restarted leader's leases are released once its pod runs anew. */
  readonly leaseObjects?: Pick<ObjectStore, 'get' | 'replace'>;
}

/** A change's nodes in the order they get a file, and what a person needs to know about that order. */
interface NodeOrder {
  readonly nodes: string[];
  readonly manager?: ManagerManifest;
  /** The nodes whose manager leads, going last (empty when none does). */
  readonly holders: readonly string[];
}

/** The migration leases the journal's plan watches (the managers' main leases are not among them). */
function migrationLeases(journal: Journal): Set<string> {
  const names = watchedLeases(journal);
  names.delete('kube-controller-manager');
  names.delete('cloud-controller-manager');
  return names;
}

function orderNote(order: NodeOrder): string {
  const last = order.holders.at(-1);
  if (!order.manager || !last) return '';
  return `, one at a time, ${last} (whose ${order.manager.component} leads) last`;
}

export function outPath(dir: string, node: string, path: string): string {
  return join(dir, node, path.replace(/^\/+/, ''));
}

/**
 * The identity of `node`'s manager when it leads now (a live lease) and the write will restart it (the node
 * does not run the manifest yet: a resumed step writes again to nodes that do, and they keep running).
 */
async function leaderToRestart(
  deps: NodeFileDeps,
  node: string,
  manager: ManagerManifest,
): Promise<string | undefined> {
  if (!deps.leases || !deps.staticPods) return undefined;
  const pods = await deps.staticPods.pods(manager.component);
  if (staticPodCaughtUp(pods, node, manager).type === 'caught-up') return undefined;
  const lease = (await deps.leases()).find((l) => l.name === manager.component);
  const holder = lease?.holderIdentity;
  return holder && leaseLive(lease, deps.staticPods.clock.now()) && namesHost(node, hostOfIdentity(holder))
    ? holder
    : undefined;
}

/**
 * The leader's node now runs the new manifest, so the process that held its leases has ended (the kubelet
 * starts a static pod only after the previous one of that name terminated): its leases are released at once
 * instead of left to expire, and a standby takes them at its next try (lease-handoff.ts releaseLeasesHeldBy,
 * decision 0033). Without write access the standbys wait out the lease duration, as before.
 */
async function releaseRestartedLeader(
  deps: NodeFileDeps,
  watched: readonly string[],
  node: string,
  manager: ManagerManifest,
  leader: string,
): Promise<void> {
  if (!deps.leaseObjects || !deps.staticPods) return;
  const pod = (await deps.staticPods.pods(manager.component)).find((p) => p.nodeName === node);
  const startedAt = pod?.startTime ? Date.parse(pod.startTime) : Number.NaN;
  const holder = { identity: leader, ...(Number.isNaN(startedAt) ? {} : { startedAt }) };
  const now = deps.staticPods.clock.now();
  const outcomes = await releaseLeasesHeldBy(deps.leaseObjects, watched, holder, now);
  const released = outcomes.filter((o) => o.outcome === 'released').map((o) => o.name);
  if (released.length > 0)
    deps.notify?.({
      type: 'note',
      message: `${node} runs the new manifest, so ${leader} has stopped: released its lease(s) ${released.join(', ')} as client-go's ReleaseOnCancel would, for a standby to take at its next try`,
    });
  if (outcomes.some((o) => o.outcome === 'forbidden'))
    deps.notify?.({
      type: 'note',
      message: `may not update leases in kube-system: the standbys take ${leader}'s leases once they expire (grant update on leases in kube-system to hand them over at once, docs/migrate.md#permissions)`,
    });
}

/** The nodes in the order a change goes to them: a manager's manifest reaches its leader's node last. */
async function nodeOrder(
  deps: NodeFileDeps,
  nodes: string[],
  change: NodeFile,
  journal: Journal,
): Promise<NodeOrder> {
  const manager = change.type === 'write-file' ? managerManifest(change.content) : undefined;
  if (!manager) return { nodes, holders: [] };
  if (!deps.leases || nodes.length < 2) return { nodes, holders: [], manager };
  const order = rollOrder(nodes, manager.component, await deps.leases(), migrationLeases(journal));
  return { nodes: [...order.nodes], holders: order.holders, manager };
}

export function nodeFileApplier(deps: NodeFileDeps): ChangeApplier<NodeFile> {
  const nodesOf = async (change: NodeFile): Promise<string[]> =>
    change.node ? [change.node] : deps.controlPlaneNodes();

  const runOnNodes = async (
    template: CommandTemplate,
    change: NodeFile,
    { nodes, manager }: NodeOrder,
    watched: readonly string[],
    stdin?: string,
  ): Promise<void> => {
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
      const leader = manager ? await leaderToRestart(deps, node, manager) : undefined;
      const argv = renderCommand(template, { node, path: change.path });
      const result = await deps.runner.run({
        file: argv[0]!,
        args: argv.slice(1),
        timeoutMs: deps.timeoutMs,
        ...(stdin !== undefined ? { stdin } : {}),
      });
      if (result.type === 'exited' && result.exitCode === 0) {
        if (manager && deps.staticPods) await waitForStaticPod(deps.staticPods, node, change.path, manager);
        if (manager && deps.staticPods && deps.leases && leader) {
          await releaseRestartedLeader(deps, watched, node, manager, leader);
          await waitForHandover(deps.staticPods, deps.leases, node, manager.component, leader);
        }
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
    const order = await nodeOrder(deps, await nodesOf(change), change, ctx.journal);
    const { nodes } = order;
    if (nodes.length === 0) {
      throw new UprootError('UP-KUBEADM-NO-NODES', 'no control-plane node found to put the file on', {
        source: 'environment',
        exitCode: ExitCode.failed,
        hint: 'check the control-plane node labels (kubectl get nodes -l node-role.kubernetes.io/control-plane)',
      });
    }
    if (change.type === 'write-file' && deps.nodeCommand) {
      await runOnNodes(deps.nodeCommand, change, order, [...watchedLeases(ctx.journal)], change.content);
      return {
        type: 'done',
        record: {
          outcome: 'changed',
          nodes,
          detail: `wrote ${change.path} on ${nodes.length} node(s)${orderNote(order)}`,
        },
      };
    }
    if (change.type === 'delete-file' && deps.nodeDeleteCommand) {
      await runOnNodes(deps.nodeDeleteCommand, change, order, [...watchedLeases(ctx.journal)]);
      return {
        type: 'done',
        record: { outcome: 'changed', nodes, detail: `deleted ${change.path} on ${nodes.length} node(s)` },
      };
    }
    if (change.type === 'write-file' && deps.manifestsOut) {
      const written = nodes.map((node) => outPath(deps.manifestsOut!, node, change.path));
      for (const file of written) deps.files.writeAtomic(file, change.content);
      return confirmManual(deps, ctx, copyInstructions(order, written, change.path));
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

/**
 * What a person copying the files reads: for a manager's manifest, one node at a time in the roll's order
 * (the leader's node last), each pod running the new manifest and Ready before the next copy.
 */
function copyInstructions(order: NodeOrder, written: readonly string[], path: string): string {
  const copies = order.nodes.map((n, i) => `  ${written[i]} → ${n}:${path}`).join('\n');
  const { manager } = order;
  if (!manager || order.nodes.length < 2) return `Copy these files to their nodes, then confirm:\n${copies}`;
  const last = order.holders.at(-1);
  const why = last ? ` (${last} last: its ${manager.component} holds the lease)` : '';
  return [
    `Copy these files to their nodes one node at a time, in this order${why}. After each copy, wait until \`kubectl -n kube-system get pod ${manager.component}-<node>\` runs the new manifest${manager.image ? ` (image ${manager.image})` : ''} and is Ready before the next node; then confirm:`,
    copies,
  ].join('\n');
}
