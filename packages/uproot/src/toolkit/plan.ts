/**
 * `uproot plan` as a library call: read a cluster definition (a file, a directory of kubeadm manifests, or a
 * built-in example), plan the migration purely, and with `out` write every artifact for review. Offline:
 * it reads no cluster and no AWS account.
 */
import { resolve } from 'node:path';
import { readClusterFiles, readExample } from '../adapters/cluster-source/index.js';
import { writePlanOutDir } from '../adapters/files/plan-out-dir.js';
import { parseDistro } from '../core/distros/detect.js';
import type { SourceFile } from '../core/distros/shared/yaml-source.js';
import { planClusterFiles, type PlanRequest } from '../core/plan/plan-cluster.js';
import type { MigrationPlan } from '../core/model/plan-types.js';
import { InputError } from '../errors/index.js';

export interface PlanOptions {
  /** The cluster definition: an RKE2 Cluster YAML, an RKE cluster.yml, or kubeadm manifests (files or a directory). */
  readonly clusterFile?: string | readonly string[];
  /** A built-in example instead: rke2, rke, rancher-rke or kubeadm. */
  readonly example?: string;
  /** The definition as text already read (a fleet reads each live Rancher Cluster), named by `path`. */
  readonly source?: { readonly path: string; readonly text: string };
  /** rke2, rke or kubeadm: confirms the detected distribution (a contradiction is an error). */
  readonly distro?: string;
  /** The Kubernetes release to end on (default: the current one). */
  readonly targetVersion?: string;
  /** Accept a target release newer than uproot's release table (a brand-new release). */
  readonly allowUnknownRelease?: boolean;
  /** A cloud-controller-manager image tag instead of the pinned release for the cluster's minor. */
  readonly ccmImageTag?: string;
  /** RKE2: keep cloud-provider-name aws (node names from instance metadata). */
  readonly keepAwsNodeNaming?: boolean;
  /** RKE: set useInstanceMetadataHostname. */
  readonly useInstanceMetadataHostname?: boolean;
  /** Move the Node IPAM controller to the CCM too (refused where the CCM release does not implement it). */
  readonly withNodeIpam?: boolean;
  /** Write every artifact (edited files per step, values, configs, RUNBOOK.md, plan.json) to this directory. */
  readonly out?: string;
  /** Relative paths resolve against it (default process.cwd()). */
  readonly cwd?: string;
}

export interface PlanRunResult {
  readonly plan: MigrationPlan;
  /** With `out`: how many files were written there. */
  readonly written?: number;
}

/** Plans the migration of a cluster definition. Throws an UprootError (InputError) on bad input. */
export async function plan(options: PlanOptions): Promise<PlanRunResult> {
  const cwd = options.cwd ?? process.cwd();
  const files = planInput(options, cwd);
  const request: PlanRequest = {
    ...(options.distro !== undefined ? { distro: parseDistro(options.distro) } : {}),
    ...(options.targetVersion !== undefined ? { targetVersion: options.targetVersion } : {}),
    ...(options.allowUnknownRelease ? { allowUnknownRelease: true } : {}),
    ...(options.ccmImageTag !== undefined ? { ccmImageTag: options.ccmImageTag } : {}),
    ...(options.keepAwsNodeNaming !== undefined ? { keepAwsNodeNaming: options.keepAwsNodeNaming } : {}),
    ...(options.useInstanceMetadataHostname !== undefined
      ? { useInstanceMetadataHostname: options.useInstanceMetadataHostname }
      : {}),
    ...(options.withNodeIpam ? { withNodeIpam: true } : {}),
  };
  const { plan: planned } = planClusterFiles(files, request);
  if (options.out === undefined) return { plan: planned };
  return { plan: planned, written: writePlanOutDir(resolve(cwd, options.out), options.out, planned) };
}

function planInput(options: PlanOptions, cwd: string): SourceFile[] {
  if (options.source !== undefined) {
    if (options.clusterFile !== undefined || options.example !== undefined) {
      throw new InputError('UP-PLAN-ARGS', 'a definition given as text cannot be combined with files', {
        location: { field: 'source', value: options.source.path },
        hint: 'give one cluster definition',
      });
    }
    return [{ path: options.source.path, text: options.source.text }];
  }
  const given =
    options.clusterFile === undefined
      ? []
      : typeof options.clusterFile === 'string'
        ? [options.clusterFile]
        : [...options.clusterFile];
  if (options.example !== undefined) {
    if (options.clusterFile !== undefined) {
      throw new InputError('UP-PLAN-ARGS', '--example and --cluster-file cannot be combined', {
        location: { field: '--example', value: options.example },
        hint: 'give either a cluster file or the name of a built-in example',
      });
    }
    return [readExample(options.example)];
  }
  if (given.length === 0) {
    throw new InputError('UP-PLAN-ARGS', 'no cluster definition given', {
      location: { field: '--cluster-file' },
      hint: 'give --cluster-file FILE (or --example rke2 to try it)',
    });
  }
  return readClusterFiles(given, cwd);
}
