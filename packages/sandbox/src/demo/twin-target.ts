/**
 * How uproot reaches a twin, the same for the demo and the tests: the kubeconfig contexts and the cluster
 * definition (Rancher's Cluster for RKE2, cluster.yml for RKE, a control-plane machine's manifests folder
 * for kubeadm), and the twin's stand-ins for the programs a person would give uproot (`rke up`, and a per-node
 * command writing into the machines' folders).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Clock, InternalError, ProcessRunner, type CommandRunner, type TargetFlags } from 'uproot';
import type { Twin } from '../twin/index.js';
import { RANCHER_NAMESPACE } from '../twin/rke2/provisioning-cluster.js';
import { rke1ClusterId } from '../twin/rke/rancher-rke1.js';
import { TWIN_NODE_COMMAND, TWIN_NODE_DELETE_COMMAND, twinNodeRunner } from './twin-node-runner.js';
import { TWIN_RKE_BINARY, twinRkeRunner } from './twin-rke-runner.js';

export interface TwinTarget {
  readonly target: TargetFlags;
  /** The execution flags a person would pass for this distribution (`--rke-binary`, `--node-command`, ...). */
  readonly execution: {
    readonly rkeBinary?: string;
    readonly nodeCommand?: string;
    readonly nodeDeleteCommand?: string;
  };
  /** Runs the twin's `rke` and node command in process; every other command for real. */
  readonly runner: CommandRunner;
}

export function twinTarget(twin: Twin, clock: Clock): TwinTarget {
  const { files, contexts, scenario } = twin;
  const target: TargetFlags = {
    kubeconfig: files.kubeconfig,
    context: contexts.downstream,
    ...(contexts.rancher
      ? {
          rancherContext: contexts.rancher,
          // RKE under Rancher: the c-xxxxx name of its v3 Cluster (and of Rancher's provisioning wrapper).
          cluster: `${RANCHER_NAMESPACE}/${scenario.distribution === 'rke' ? rke1ClusterId(scenario.clusterName) : scenario.clusterName}`,
        }
      : {}),
    ...(files.rkeConfig ? { clusterFile: files.rkeConfig } : {}),
    ...(files.nodes ? { clusterFile: manifestsDir(files.nodes) } : {}),
  };
  const execution = {
    ...(files.rkeConfig ? { rkeBinary: TWIN_RKE_BINARY } : {}),
    ...(files.nodes ? { nodeCommand: TWIN_NODE_COMMAND, nodeDeleteCommand: TWIN_NODE_DELETE_COMMAND } : {}),
  };
  const runner = twinNodeRunner(
    files.nodes ?? twin.dir,
    twinRkeRunner((text, file) => twin.applyRkeConfig(text, file), clock, new ProcessRunner(clock)),
  );
  return { target, execution, runner };
}

/** The manifests folder of the first control-plane machine (the one with a kube-controller-manager). */
function manifestsDir(nodesDir: string): string {
  for (const node of readdirSync(nodesDir).sort()) {
    const dir = join(nodesDir, node, 'etc/kubernetes/manifests');
    if (existsSync(join(dir, 'kube-controller-manager.yaml'))) return dir;
  }
  throw new InternalError(`the kubeadm twin in ${nodesDir} has no control-plane machine`);
}
