/**
 * The hops of an upgrade journey past the migration: one step per Kubernetes minor, because every
 * distribution upgrades one minor at a time (Kubernetes version-skew policy; field-reports §1). Each hop
 * re-pins the CCM to its minor, drops what that minor removed, and is gated on the whole cluster running it
 * before the next hop starts. A hop has no undo: Kubernetes does not downgrade, so the engine refuses to roll
 * back across one (src/engine/rollback).
 */
import { atLeast, type KubernetesVersion } from '../../model/kubernetes-version.js';
import {
  ccmUpgradeStepId,
  isUpgradeStepId,
  upgradeStepId,
  type Change,
  type Gate,
  type PlanStep,
} from '../../model/plan-types.js';
import type { PlannedUpgrade, StepOptions } from '../distro.js';

/** kube-apiserver 1.33 removed --cloud-provider and --cloud-config (kubernetes/kubernetes#130162). */
export const APISERVER_CLOUD_FLAGS = ['cloud-provider', 'cloud-config'] as const;

export function apiserverDropsCloudFlags(version: Pick<KubernetesVersion, 'major' | 'minor'>): boolean {
  return atLeast({ ...version, patch: 0, raw: '' }, 1, 33);
}

/** Why uproot leaves Rancher's recipe at 1.33, said in the step that drops the flag. */
export const APISERVER_FLAG_REASON =
  'kube-apiserver 1.33 no longer has --cloud-provider or --cloud-config and exits with "unknown flag: --cloud-provider" (kubernetes/kubernetes#130162); Rancher\u2019s docs still recommend kube-apiserver-arg cloud-provider=external (rancher/rancher-docs#2281), which is right only up to 1.32, so uproot keeps it until the hop to 1.33 and drops it in the same change that moves the control plane to 1.33';

/** The undo a hop records: none, and why. */
export const NO_DOWNGRADE =
  'Kubernetes does not downgrade: once this step has started, uproot rollback stops before it. To go back, restore the cluster from a backup taken before the upgrade (an etcd snapshot); otherwise fix what failed and run uproot migrate --resume.';

export interface HopParts {
  readonly version: KubernetesVersion;
  readonly description: string;
  readonly source: string;
  readonly changes: Change[];
  readonly gates: Gate[];
}

export function upgradeStep(parts: HopParts): PlanStep {
  return {
    id: upgradeStepId(parts.version),
    title: `Upgrade Kubernetes to ${parts.version.raw}`,
    description: parts.description,
    source: parts.source,
    changes: parts.changes,
    gates: parts.gates,
    undo: { description: NO_DOWNGRADE, changes: [] },
    optional: false,
  };
}

/** What an upgrade-ccm-1.N step carries: the CCM's move to the minor its hop just rolled out (RKE2). */
export interface CcmHopParts {
  readonly version: KubernetesVersion;
  readonly ccmImage: string;
  readonly description: string;
  readonly source: string;
  readonly changes: Change[];
  readonly gates: Gate[];
  readonly undo: PlanStep['undo'];
}

export function ccmUpgradeStep(parts: CcmHopParts): PlanStep {
  return {
    id: ccmUpgradeStepId(parts.version),
    title: `Move the CCM to ${parts.ccmImage}`,
    description: parts.description,
    source: parts.source,
    changes: parts.changes,
    gates: parts.gates,
    undo: parts.undo,
    optional: false,
  };
}

export const JOURNEY_SOURCE =
  'Kubernetes version-skew policy (one minor at a time); field-reports §1 (the journey past 1.27)';

/** The upgrades after the migration step, in order (the hops the planner adds as steps of their own). */
export function journeyHops(options: StepOptions): PlannedUpgrade[] {
  return options.upgrades.filter((u) => isUpgradeStepId(u.step));
}
