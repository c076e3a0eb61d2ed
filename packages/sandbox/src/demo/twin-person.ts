/**
 * The person at the demo's terminal, for the steps uproot leaves to one. The demo reads what a step's manual
 * changes ask from the plan as data (`actions` of a manual change, src/core/model/plan-types.ts), never from
 * their prose, does exactly that against the twin, and then resumes with --manual-done, as a person would:
 * - `helm upgrade --install` of the CCM chart with one of the plan's values files (RKE without
 *   helm-controller): the twin's rendering of the chart with those values;
 * - kubeadm: static pod manifests and the kubelet (flags, package) on each machine, one machine at a time,
 *   and kubeadm's stored ClusterConfiguration (twin-person-kubeadm.ts).
 */
import { parse } from 'yaml';
import {
  type Clock,
  type Change,
  type ManualAction,
  type MigrationPlan,
  type StepId,
  InternalError,
} from 'uproot';
import { ManifestApplier } from '../twin/helm/manifest-applier.js';
import { CCM_CHART_NAME, renderCcmChart, type Twin } from '../twin/index.js';
import { KubeadmHands } from './twin-person-kubeadm.js';

type Manual = Extract<Change, { type: 'manual' }>;

export interface PersonTask {
  readonly step: StepId;
  /** The instructions uproot stopped on (the first manual change of the step not done yet). */
  readonly instructions: string;
}

/**
 * Does every manual change of the step (or of its undo) uproot is waiting on, when the one it stopped on
 * comes with actions
 * (`--manual-done` then confirms all of the step's manual changes at once, so all must be done now). Returns
 * what was done, or undefined when the demo has no hand for it (the demo then stops, as a person would).
 */
export async function actAsPerson(
  twin: Twin,
  clock: Clock,
  plan: MigrationPlan,
  task: PersonTask,
): Promise<string | undefined> {
  const step = plan.steps.find((s) => s.id === task.step);
  // A migration waits on the step's changes, a rollback on its undo's.
  const manuals = [step?.changes ?? [], step?.undo.changes ?? []]
    .map((changes) => changes.filter((c): c is Manual => c.type === 'manual'))
    .find((list) => list.some((c) => c.instructions === task.instructions));
  const waiting = manuals?.find((c) => c.instructions === task.instructions);
  if (!manuals || !waiting?.actions?.length) return undefined;
  const actions = manuals.flatMap((c) => c.actions ?? []);
  if (!actions.every((a) => canDo(twin, plan, a))) return undefined;
  const kubeadm = twin.files.nodes ? new KubeadmHands(twin.files.nodes, twin.kube, clock) : undefined;
  const done: string[] = [];
  // Consecutive static pod edits go together, machine by machine ("on each control-plane node, one at a time").
  for (let i = 0; i < actions.length;) {
    const action = actions[i]!;
    if (action.type === 'edit-static-pod') {
      let j = i;
      const edits: Extract<ManualAction, { type: 'edit-static-pod' }>[] = [];
      for (; j < actions.length && actions[j]!.type === 'edit-static-pod'; j++)
        edits.push(actions[j] as (typeof edits)[number]);
      done.push(await kubeadm!.editStaticPods(edits));
      i = j;
      continue;
    }
    if (action.type === 'helm-upgrade') done.push(helmUpgrade(twin, plan, action));
    else if (action.type === 'kubelet') done.push(await kubeadm!.kubelets(action));
    else done.push(kubeadm!.editKubeadmConfig(action));
    i++;
  }
  return done.join('; ');
}

function canDo(twin: Twin, plan: MigrationPlan, action: ManualAction): boolean {
  if (action.type === 'helm-upgrade')
    return action.chart === CCM_CHART_NAME && plan.artifacts.some((a) => a.path === action.values);
  return twin.files.nodes !== undefined;
}

/** The CCM chart rendered with the plan's values file and applied as helm would (release objects replaced). */
function helmUpgrade(
  twin: Twin,
  plan: MigrationPlan,
  action: Extract<ManualAction, { type: 'helm-upgrade' }>,
): string {
  const artifact = plan.artifacts.find((a) => a.path === action.values)!;
  const values = parse(artifact.content) as Record<string, unknown>;
  const chart = renderCcmChart(values, { name: action.release, service: 'Helm' });
  const result = new ManifestApplier(twin.kube).apply(
    `helm:${action.release}`,
    chart.objects,
    action.namespace,
  );
  if (result.errors.length > 0) {
    throw new InternalError(`installing the CCM chart on the twin failed: ${result.errors.join('; ')}`);
  }
  return `helm upgrade --install ${action.release} -n ${action.namespace} --values ${action.values} (${chart.objects.length} objects)`;
}
