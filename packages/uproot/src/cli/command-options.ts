/**
 * The flags of the commands that talk to a cluster (migrate, rollback, status, verify, demo): the target and
 * execution flags, their translation to toolkit options, and the run host. Loaded at start-up (the hints
 * list these flags), so it stands on core's index and the toolkit's types only; what a run prints is in
 * command-kit.ts.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CliIo } from './io.js';
import { outputOption } from './output.js';
import { isStepId, STEP_IDS, type StepId } from '../core/index.js';
import type { ExecutionFlags, RunHost } from '../toolkit/session/run-settings.js';
import type { TargetFlags } from '../toolkit/targets.js';

/** A step id: one of STEP_IDS, or a journey's upgrade-kubernetes-1.N or (RKE2) upgrade-ccm-1.N. */
export function stepIdArg(value: string): StepId {
  if (isStepId(value)) return value;
  throw new InvalidArgumentError(
    `Allowed choices are ${STEP_IDS.join(', ')}, upgrade-kubernetes-1.N, upgrade-ccm-1.N.`,
  );
}

export interface TargetCliFlags {
  kubeconfig?: string;
  context?: string;
  rancherContext?: string;
  cluster?: string;
  clusterFile?: string;
  rancherInCluster?: boolean;
  downstreamFromRancher?: boolean;
}

export interface ExecutionCliFlags {
  gateTimeoutScale?: string;
  rkeBinary?: string;
  rkeTimeout?: string;
  manifestsOut?: string;
  nodeCommand?: string;
  nodeDeleteCommand?: string;
  nodeCommandTimeout?: string;
  manualDone?: StepId[];
  stateDir?: string;
  output: string;
}

export function addTargetOptions(cmd: Command, withClusterFile = true): Command {
  cmd
    .option(
      '--kubeconfig <file>',
      'kubeconfig of the cluster being migrated (default $KUBECONFIG, ~/.kube/config)',
    )
    .option('--context <name>', 'kubeconfig context of the cluster being migrated')
    .option(
      '--rancher-context <name>',
      "RKE2 under Rancher: the kubeconfig context of Rancher's management cluster",
    )
    .option(
      '--cluster <name>',
      'RKE2 under Rancher: the provisioning Cluster, NAME or NAMESPACE/NAME (fleet-default)',
    )
    .option(
      '--rancher-in-cluster',
      "RKE2 under Rancher, in a pod of Rancher's local cluster: reach it with the pod's service account",
    )
    .option(
      '--downstream-from-rancher',
      'RKE2 under Rancher: reach the cluster with the kubeconfig Rancher keeps for it (<cluster>-kubeconfig Secret)',
    );
  if (withClusterFile)
    cmd.option('--cluster-file <file>', 'RKE: cluster.yml; kubeadm: the manifest file or directory');
  return cmd;
}

export function addExecutionOptions(cmd: Command): Command {
  return cmd
    .option('--gate-timeout-scale <n>', 'multiply every gate deadline (e.g. 2 for slow clusters)')
    .option('--rke-binary <path>', 'RKE: the rke binary to run `rke up` with', 'rke')
    .option('--rke-timeout <seconds>', 'RKE: how long one `rke up` may take', '3600')
    .option(
      '--manifests-out <dir>',
      'kubeadm: write each node\u2019s files to DIR/<node>/<path> for you to distribute',
    )
    .option(
      '--node-command <template>',
      "kubeadm: write a file on a node, e.g. 'ssh {node} sudo tee {path}' (content on stdin)",
    )
    .option(
      '--node-delete-command <template>',
      "kubeadm: delete a file on a node, e.g. 'ssh {node} sudo rm -f {path}'",
    )
    .option('--node-command-timeout <seconds>', 'kubeadm: how long one node command may take', '120')
    .addOption(
      new Option(
        '--manual-done <step...>',
        'steps whose manual actions you have done (without a terminal)',
      ).argParser((value: string, previous: StepId[] | undefined) => [...(previous ?? []), stepIdArg(value)]),
    )
    .option('--state-dir <dir>', 'where the local journal copy is kept', '.uproot')
    .addOption(outputOption());
}

const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));

export function targetFlags(opts: TargetCliFlags): TargetFlags {
  return {
    ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
    ...(opts.context ? { context: opts.context } : {}),
    ...(opts.rancherContext ? { rancherContext: opts.rancherContext } : {}),
    ...(opts.cluster ? { cluster: opts.cluster } : {}),
    ...(opts.clusterFile ? { clusterFile: opts.clusterFile } : {}),
    ...(opts.rancherInCluster ? { rancherInCluster: true } : {}),
    ...(opts.downstreamFromRancher ? { downstreamFromRancher: true } : {}),
  };
}

export function executionFlags(opts: ExecutionCliFlags): ExecutionFlags & { stateDir?: string } {
  const out: Record<string, unknown> = {
    gateTimeoutScale: num(opts.gateTimeoutScale),
    rkeBinary: opts.rkeBinary,
    rkeTimeoutSeconds: num(opts.rkeTimeout),
    manifestsOut: opts.manifestsOut,
    nodeCommand: opts.nodeCommand,
    nodeDeleteCommand: opts.nodeDeleteCommand,
    nodeCommandTimeoutSeconds: num(opts.nodeCommandTimeout),
    manualDone: opts.manualDone,
    stateDir: opts.stateDir,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as ExecutionFlags;
}

export function hostOf(io: CliIo): RunHost {
  return {
    cwd: io.cwd,
    env: io.env,
    interactive: io.interactive,
    ...(io.confirm ? { confirm: (q: string) => io.confirm!(q) } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  };
}
