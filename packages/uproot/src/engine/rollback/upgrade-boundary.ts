/**
 * Kubernetes does not downgrade: once a step that changes the Kubernetes version has started (the migration
 * step with seed 002's upgrade folded in, or a hop of the journey), no rollback may cross it. Undoing it would
 * write the older release back into the cluster definition and ask the distribution to roll the control plane
 * backwards, which neither upstream nor Rancher supports (etcd may already hold objects in the newer
 * release's storage versions). A rollback therefore undoes only the steps after the last such step, and
 * refuses the rest with a reason and what to do instead. The plan lists these steps in kubernetes.upgrades,
 * so the engine needs no distribution knowledge to find them.
 */
import {
  hopStepOfCcmUpgrade,
  isCcmUpgradeStepId,
  type PlanStep,
  type StepId,
} from '../../core/model/plan-types.js';
import { ExitCode, UprootError } from '../../errors/index.js';
import type { Journal } from '../journal/journal-schema.js';

export interface UpgradeBoundary {
  /** The last step a rollback leaves in place: the version step, or the CCM move that completes its hop. */
  readonly step: PlanStep;
  /** The step that moved the cluster to `version` (the one the refusal names). */
  readonly upgrade: StepId;
  /** The release the step moves the cluster to. */
  readonly version: string;
}

/**
 * The last step of the plan that changes the Kubernetes version and has started; undefined when none has. An
 * RKE2 hop's CCM move (upgrade-ccm-1.N) belongs to its hop: undoing it would put the CCM a minor behind the
 * cluster, no nearer the state before the upgrade, at the cost of a CCM rollout.
 */
export function upgradeBoundary(journal: Journal): UpgradeBoundary | undefined {
  const versions = new Map<StepId, string>(
    (journal.plan.kubernetes.upgrades ?? []).map((u) => [u.step, u.version]),
  );
  let boundary: UpgradeBoundary | undefined;
  for (const step of journal.plan.steps) {
    const upgrade = isCcmUpgradeStepId(step.id) ? hopStepOfCcmUpgrade(step.id) : step.id;
    const version = versions.get(upgrade);
    const record = journal.steps.find((s) => s.id === step.id);
    // Started means possibly applied: a crash between the edit and its record leaves no other trace.
    if (version !== undefined && record && record.state !== 'pending' && record.state !== 'rolled-back')
      boundary = { step, upgrade, version };
  }
  return boundary;
}

/** A rollback asked to cross a started upgrade. Exit 2 when nothing was undone (nothing was written either). */
export class RollbackAcrossUpgradeError extends UprootError {
  readonly step: StepId;
  readonly version: string;

  constructor(boundary: UpgradeBoundary, undone: readonly StepId[] = []) {
    const { upgrade, version } = boundary;
    super(
      'UP-ROLLBACK-ACROSS-UPGRADE',
      `${undone.length > 0 ? `undid ${undone.join(', ')}, and stops before ${upgrade}` : `cannot roll back past ${upgrade}`}: that step moved the cluster to Kubernetes ${version}, and Kubernetes does not downgrade (a control plane rolled back a minor may not read what the newer release wrote to etcd)`,
      {
        source: 'user',
        exitCode: undone.length > 0 ? ExitCode.failed : ExitCode.badInput,
        location: { field: 'uproot rollback', value: upgrade },
        hint: `the cluster stays on the external cloud provider at ${version}, which is where it has to be from 1.27 on. To finish the step instead, fix what stopped it (uproot status shows the failed gate) and run \`uproot migrate --resume\`. To return to the state before the upgrade, restore the etcd snapshot taken before it (Rancher: the cluster's Snapshots → Restore; RKE2 and kubeadm: restore the etcd snapshot on the servers); uproot does not do that.`,
      },
    );
    this.name = 'RollbackAcrossUpgradeError';
    this.step = upgrade;
    this.version = version;
  }
}
