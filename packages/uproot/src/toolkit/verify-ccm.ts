/**
 * verify's "the cloud-controller-manager runs with the expected args": the chart's DaemonSet rolled out
 * (RKE2, RKE), or on kubeadm the static pod on every control-plane node. Either way the CCM runs
 * --cloud-provider=aws, and without leader migration once the plan's disable-leader-migration step is done.
 */
import { flagEnabled, parseFlags } from '../core/model/component-flags.js';
import type { Distro } from '../core/model/plan-types.js';
import type { KubeGateReader } from '../adapters/kube/gate-reader.js';
import type { ObjectStore } from '../engine/ports.js';
import { evaluateDaemonSetRollout } from '../engine/gates/daemonset-rollout.js';
import type { ComponentPodFacts, NodeFacts } from '../engine/gates/gate-facts.js';
import { someNames } from '../engine/gates/gate-verdict.js';
import type { Journal } from '../engine/journal/journal-schema.js';
import { fromVerdict, type VerifyCheck } from './verify-check.js';

const ID = 'ccm-running' as const;
const TITLE = 'the cloud-controller-manager runs with the expected args';

export interface CcmOptions {
  /** NAMESPACE/NAME of the CCM DaemonSet. */
  readonly ccmDaemonSet?: string;
}

/** What is wrong with a CCM's flags (empty when nothing is). */
export function ccmArgProblems(args: readonly string[], migrationOff: boolean): string[] {
  const flags = parseFlags(args);
  const problems: string[] = [];
  if (flags.get('cloud-provider') !== 'aws')
    problems.push(`--cloud-provider=${flags.get('cloud-provider') ?? '(unset)'} (expected aws)`);
  if (migrationOff && flagEnabled(flags, 'enable-leader-migration', false))
    problems.push('--enable-leader-migration is still set after disable-leader-migration');
  return problems;
}

/** kubeadm: a running, ready CCM static pod with good flags on every control-plane node. */
export function judgeCcmStaticPods(
  pods: readonly ComponentPodFacts[],
  controlPlane: readonly NodeFacts[],
  migrationOff: boolean,
): VerifyCheck {
  const fix =
    'check /etc/kubernetes/manifests/cloud-controller-manager.yaml on the named nodes and the kubelet log there (journalctl -u kubelet)';
  const missing: string[] = [];
  const bad: string[] = [];
  for (const node of controlPlane) {
    const pod = pods.find((p) => p.nodeName === node.name);
    if (!pod || pod.phase !== 'Running' || pod.ready === false) {
      missing.push(node.name);
      continue;
    }
    const problems = ccmArgProblems(pod.args, migrationOff);
    if (problems.length > 0) bad.push(`${node.name}: ${problems.join('; ')}`);
  }
  if (controlPlane.length === 0)
    return { id: ID, title: TITLE, status: 'fail', detail: 'no control-plane node found', fix };
  if (missing.length > 0)
    return {
      id: ID,
      title: TITLE,
      status: 'fail',
      detail: `no running cloud-controller-manager static pod on ${someNames(missing)}`,
      fix,
    };
  if (bad.length > 0) return { id: ID, title: TITLE, status: 'fail', detail: bad.join('; '), fix };
  const stillMigrating = pods.some((p) => flagEnabled(parseFlags(p.args), 'enable-leader-migration', false));
  return {
    id: ID,
    title: TITLE,
    status: 'pass',
    detail: `static pods on all ${controlPlane.length} control-plane nodes run --cloud-provider=aws${stillMigrating ? ', leader migration still enabled (allowed; disable it when the migration is over)' : ''}`,
  };
}

export async function ccmRunning(
  objects: ObjectStore,
  reader: KubeGateReader,
  journal: Journal | undefined,
  options: CcmOptions,
  context: { readonly distro: Distro; readonly cpNodes: readonly NodeFacts[] },
): Promise<VerifyCheck> {
  const migrationOff =
    journal?.steps.some((s) => s.id === 'disable-leader-migration' && s.state === 'verified') ?? false;
  const staticPod = journal
    ? journal.plan.decisions?.ccmInstall === 'static-pod'
    : context.distro === 'kubeadm' && !options.ccmDaemonSet;
  if (staticPod)
    return judgeCcmStaticPods(
      await reader.componentPods('cloud-controller-manager'),
      context.cpNodes,
      migrationOff,
    );

  const fromPlan = journal?.plan.steps.flatMap((s) => s.gates).find((g) => g.type === 'daemonset-rolled-out');
  const [namespace, name] = options.ccmDaemonSet?.includes('/')
    ? (options.ccmDaemonSet.split('/', 2) as [string, string])
    : [
        fromPlan?.type === 'daemonset-rolled-out' ? fromPlan.namespace : 'kube-system',
        options.ccmDaemonSet ??
          (fromPlan?.type === 'daemonset-rolled-out' ? fromPlan.name : 'aws-cloud-controller-manager'),
      ];
  const rollout = evaluateDaemonSetRollout(await reader.daemonSet(namespace, name), { namespace, name });
  if (rollout.type !== 'pass') return fromVerdict(ID, TITLE, rollout);
  const ds = await objects.get({ apiVersion: 'apps/v1', kind: 'DaemonSet', namespace, name });
  const containers =
    (
      ds?.spec as
        { template?: { spec?: { containers?: { command?: string[]; args?: string[] }[] } } } | undefined
    )?.template?.spec?.containers ?? [];
  const args = containers.flatMap((c) => [...(c.command ?? []), ...(c.args ?? [])]);
  const problems = ccmArgProblems(args, migrationOff);
  if (problems.length > 0) {
    return {
      id: ID,
      title: TITLE,
      status: 'fail',
      detail: `${namespace}/${name}: ${problems.join('; ')}`,
      fix: 'update the CCM chart values (args) and let the DaemonSet roll out',
    };
  }
  return {
    id: ID,
    title: TITLE,
    status: 'pass',
    detail: `${rollout.detail}; --cloud-provider=aws${flagEnabled(parseFlags(args), 'enable-leader-migration', false) ? ', leader migration still enabled (allowed; disable it when the migration is over)' : ''}`,
  };
}
