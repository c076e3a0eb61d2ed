/**
 * What every distribution planner offers (RKE2, RKE, kubeadm). Planners are pure: they take file contents and
 * return values; the CLI reads and writes files, the engine talks to clusters.
 *
 * The engine's contract is `applyStep`: a pure, idempotent transformation per step that it re-applies to a
 * freshly read object when an update conflicts (HTTP 409), so edits made meanwhile by Rancher or a person
 * survive. `applyStepToText` is the same transformation applied to a file's text with comments and layout
 * kept (what `--out` writes and what a file-based engine writes back). Both take `StepOptions`, which
 * `stepOptionsFromPlan(plan)` rebuilds from a stored plan.
 */
import type { KubernetesVersion } from '../model/kubernetes-version.js';
import {
  isCcmUpgradeStepId,
  hopStepOfCcmUpgrade,
  isUpgradeStepId,
  type Distro,
  type MigrationPlan,
  type PlanDecisions,
  type StepId,
} from '../model/plan-types.js';
import type { SourceFile } from './shared/yaml-source.js';
import type { RkeTooling } from './rke/rke-tooling.js';

export type { SourceFile } from './shared/yaml-source.js';

/** A cluster definition that a planner has read and validated. */
export interface ClusterDefinition {
  readonly distro: Distro;
  /** The cluster's name (metadata.name, cluster_name, or kubeadm's --cluster-name). */
  readonly name: string;
  /** The file(s) it was read from, for messages and the plan's `cluster.source`. */
  readonly source: string;
  readonly kubernetesVersion: KubernetesVersion;
}

/** What the user asked for on the command line; every field is optional. */
export interface PlanOptions {
  /** `--target-version`: default the current version (same-version migration). */
  readonly targetVersion?: string;
  /** `--allow-unknown-release`: accept a full release name newer than uproot's release table. */
  readonly allowUnknownRelease?: boolean;
  /** RKE2: override the node-naming decision (`--keep-aws-node-naming` / `--no-keep-aws-node-naming`). */
  readonly keepAwsNodeNaming?: boolean;
  /** RKE: override `useInstanceMetadataHostname` (`--[no-]use-instance-metadata-hostname`). */
  readonly useInstanceMetadataHostname?: boolean;
  /**
   * `--with-nodeipam`: move the Node IPAM controller to the CCM too (seed 003's special case), refused where
   * the CCM release does not implement it (controller-handover.ts).
   */
  readonly withNodeIpam?: boolean;
  /** `--ccm-image-tag`: a CCM image tag instead of the release uproot pins for the cluster's minor. */
  readonly ccmImageTag?: string;
  /** RKE: what runs `rke up` and its version, when migrate could ask (the plan refuses one without external-aws). */
  readonly rkeTooling?: RkeTooling;
}

/** A step that changes the Kubernetes version: the release it moves to and the CCM image that goes with it. */
export interface PlannedUpgrade {
  readonly step: StepId;
  readonly version: string;
  readonly ccmTag: string;
}

/** Everything a step transformation needs; derived from a plan with `stepOptionsFromPlan`. */
export interface StepOptions {
  readonly currentVersion: string;
  /** The release the migration step moves to (the current one when it keeps the version). */
  readonly targetVersion: string;
  readonly ccmInstallTag: string;
  readonly ccmTargetTag: string;
  readonly leaderMigrationConfig: 'default' | 'explicit';
  readonly decisions: PlanDecisions;
  /** Every step that changes the version (plan.kubernetes.upgrades), the migration's first; empty when none. */
  readonly upgrades: readonly PlannedUpgrade[];
}

/** The upgrade an upgrade-kubernetes-1.N step makes, or undefined for any other step. */
export function hopOf(options: StepOptions, stepId: StepId): PlannedUpgrade | undefined {
  return isUpgradeStepId(stepId) ? options.upgrades.find((u) => u.step === stepId) : undefined;
}

/** The hop an upgrade-ccm-1.N step moves the CCM for (RKE2), or undefined for any other step. */
export function ccmHopOf(options: StepOptions, stepId: StepId): PlannedUpgrade | undefined {
  if (!isCcmUpgradeStepId(stepId)) return undefined;
  const hop = hopStepOfCcmUpgrade(stepId);
  return options.upgrades.find((u) => u.step === hop);
}

/**
 * What the engine, verify and status need to know about a distribution, so that none of them branches on its
 * name: the distribution contributes its facts through its planner.
 */
export interface DistroFacts {
  /** Label selector of the control-plane nodes (the plan's own cordon step says it when there is one). */
  readonly controlPlaneSelector: string;
  /**
   * Whether kube-controller-manager runs as pods whose flags the API shows (static pods), or not, and then why
   * the flag gate passes without reading them (RKE runs it as a Docker container).
   */
  readonly managerPods: { readonly readable: true } | { readonly readable: false; readonly reason: string };
  /**
   * What rolls a cluster-definition change out: Rancher reconciling the provisioning Cluster (the
   * cluster-rolled-out gate reads its status), a command uproot runs on the edited file (`{file}` is its name;
   * run in its directory), or nothing beyond the static pods (judged by control-plane-flags). `passed` is the
   * cluster-rolled-out verdict when there is no cluster object to read.
   */
  readonly rollout:
    | { readonly type: 'cluster-object' }
    | { readonly type: 'command'; readonly command: readonly [string, ...string[]]; readonly passed: string }
    | { readonly type: 'static-pods'; readonly passed: string };
}

export interface DistroPlanner {
  readonly name: Distro;
  readonly facts: DistroFacts;
  /** True when these parsed documents (plain JSON, one per YAML document) are this distro's input. */
  detect(documents: readonly unknown[]): boolean;
  /** Parses and validates the input; bad input is an InputError naming the file, line/field and value. */
  read(files: readonly SourceFile[]): ClusterDefinition;
  plan(definition: ClusterDefinition, options: PlanOptions): MigrationPlan;
  /**
   * The step's transformation of the object it changes (RKE2: the provisioning Cluster; RKE: the cluster.yml
   * document; kubeadm: the manifest or Role it is given). Pure and idempotent; steps that change no object
   * return `current` unchanged.
   */
  applyStep(stepId: StepId, current: unknown, options: StepOptions): unknown;
  /** The same transformation on a file's text, keeping comments and untouched bytes. */
  applyStepToText(stepId: StepId, text: string, options: StepOptions): string;
}

export function stepOptionsFromPlan(plan: MigrationPlan): StepOptions {
  const upgrades = plan.kubernetes.upgrades ?? [];
  // The plan's header names where the whole plan ends; the migration step's own release is its entry.
  const migration = upgrades.find((u) => !isUpgradeStepId(u.step));
  return {
    currentVersion: plan.kubernetes.current,
    targetVersion: migration?.version ?? plan.kubernetes.target,
    ccmInstallTag: plan.ccm.installTag,
    ccmTargetTag: migration?.ccmTag ?? plan.ccm.targetTag,
    leaderMigrationConfig: plan.ccm.leaderMigrationConfig,
    decisions: plan.decisions ?? {},
    upgrades,
  };
}
