/**
 * control-plane-scheduling: the CCM DaemonSet must be able to run on the control-plane nodes, judged with the
 * scheduler's rules (facts/scheduling.ts) against the nodes' real labels and taints. The chart's default
 * nodeSelector `node-role.kubernetes.io/control-plane: ""` matches nothing on RKE2 (`…=true`) or RKE
 * (`node-role.kubernetes.io/controlplane=true`), and Helm merges a user's nodeSelector into it rather than
 * replacing it. Of the nodes it selects, it runs only where it tolerates every NoSchedule/NoExecute taint:
 * Rancher taints RKE2 machines without the worker role `node-role.kubernetes.io/etcd:NoExecute` and
 * `…/control-plane:NoSchedule` with no value (so seed 004's `value: 'true'` tolerations miss them), RKE
 * `…/etcd=true:NoExecute` and `…/controlplane=true:NoSchedule` (src/core/scheduling/role-taints.ts). It fails
 * when it tolerates none of the nodes it selects and warns when it misses some, naming each taint, its nodes
 * and the toleration to add. The CCM must also tolerate `node.cloudprovider.kubernetes.io/uninitialized`,
 * which every new node carries until the CCM itself initializes it.
 */
import { stringify } from 'yaml';
import { fail, pass, skip, warn, type CheckResult, type Fix } from './check-result.js';
import { plural, type CheckContext } from './check-context.js';
import type { NodeFacts } from '../model/snapshot.js';
import type { Taint, Toleration } from '../model/taint.js';
import {
  CCM_NAMESPACE,
  findCcmDeployments,
  fromChartValues,
  recommendedPlacement,
  type CcmDeployment,
} from '../ccm/index.js';
import {
  blockingTaints,
  daemonSetTolerations,
  placementOnNode,
  toleratesTaint,
  formatTaint,
} from './facts/scheduling.js';
import { formatToleration, tolerationFor } from '../scheduling/index.js';
import { isControlPlaneNode } from './facts/cluster-profile.js';
import { renderCcmValues, valuesYaml } from '../ccm/index.js';

const ID = 'control-plane-scheduling';
const CCM_DAEMONSET = 'aws-cloud-controller-manager';
const UNINITIALIZED: Taint = {
  key: 'node.cloudprovider.kubernetes.io/uninitialized',
  value: 'true',
  effect: 'NoSchedule',
};

export function checkControlPlaneScheduling(ctx: CheckContext): CheckResult {
  const nodes = ctx.snapshot.kube.nodes;
  if (nodes.state === 'unavailable') return skip(ID, nodes.reason);
  const cp = ctx.profile.controlPlane;
  if (cp.length === 0)
    return skip(
      ID,
      'no control-plane nodes are visible (no node-role.kubernetes.io/control-plane, master or controlplane label)',
    );
  const deployments = findCcmDeployments(ctx.snapshot.kube, ctx.profile.definition).filter(
    (d) => d.kind !== 'static-pod',
  );
  if (deployments.length === 0) return judgePlanned(ctx, cp);
  const failing: string[] = [];
  const warning: string[] = [];
  const details: string[] = [];
  const fixes: Fix[] = [];
  for (const d of deployments) {
    const v = judge(d, cp, ctx.profile.nodes);
    details.push(
      `${d.source}: ${describeSelector(d)} selects ${v.selected.length}/${cp.length} control-plane nodes, ${v.fits.length} of them tolerated`,
      ...v.details,
    );
    if (v.selected.length === 0)
      failing.push(
        `${d.source}: ${describeSelector(d)} matches none of the ${plural(cp.length, 'control-plane node')}`,
      );
    else if (v.fits.length === 0) failing.push(`${d.source} ${untoleratedSummary(v)}`);
    else if (v.fits.length < v.selected.length) warning.push(`${d.source} ${untoleratedSummary(v)}`);
    if (v.selected.length > 0 && v.selected.length < cp.length)
      warning.push(`${d.source} selects ${v.selected.length} of ${plural(cp.length, 'control-plane node')}`);
    if (!v.toleratesUninitialized)
      failing.push(
        `${d.source} does not tolerate ${formatTaint(UNINITIALIZED)}: new nodes would never be initialized`,
      );
    if (v.workers.length > 0)
      warning.push(
        `${d.source} also fits ${plural(v.workers.length, 'non-control-plane node')}, whose roles lack the control-plane policy`,
      );
    if (v.selected.length < cp.length || !v.toleratesUninitialized || v.workers.length > 0)
      fixes.push(fixFor(ctx, d, cp));
    else if (v.fits.length < v.selected.length) fixes.push(...tolerationFix(v, ctx.profile.distro));
  }
  if (failing.length > 0)
    return fail(ID, failing[0]!, fixes, { details: [...failing, ...warning, ...details] });
  if (warning.length > 0) return warn(ID, warning[0]!, fixes, { details: [...warning, ...details] });
  return pass(
    ID,
    `the CCM fits all ${plural(cp.length, 'control-plane node')} (${deployments.map((d) => d.source).join(', ')})`,
    { details },
  );
}

/** No CCM installed or declared yet: the values uproot's plan would install, against the live nodes. */
function judgePlanned(ctx: CheckContext, cp: readonly NodeFacts[]): CheckResult {
  const planned = plannedDeployment(ctx);
  const verdict = judge(planned, cp, ctx.profile.nodes);
  const defaults = judge(fromChartValues('planned', 'chart defaults'), cp, ctx.profile.nodes);
  const note = defaults.fits.length === 0 ? `; the chart's defaults would ${defaultsProblem(defaults)}` : '';
  if (verdict.fits.length === cp.length && verdict.problems.length === 0) {
    return pass(
      ID,
      `no CCM installed yet; uproot's values (${describeSelector(planned)}) fit all ${plural(cp.length, 'control-plane node')}${note}`,
      { details: verdict.details },
    );
  }
  // Selected nodes whose taints uproot's own values do not tolerate: the CCM it installs would never run there.
  if (verdict.selected.length > 0 && verdict.fits.length === 0) {
    return fail(
      ID,
      `no CCM installed yet, and the CCM of uproot's plan ${untoleratedSummary(verdict)}`,
      tolerationFix(verdict, ctx.profile.distro),
      {
        details: verdict.details,
      },
    );
  }
  return warn(
    ID,
    `no CCM installed yet, and the recommended values fit ${verdict.fits.length} of ${plural(cp.length, 'control-plane node')}${note}`,
    [fixFor(ctx, planned, cp)],
    { details: verdict.details },
  );
}

interface UntoleratedTaint {
  readonly taint: Taint;
  /** The selected control-plane nodes that carry it. */
  readonly nodes: readonly string[];
}

interface Verdict {
  readonly deployment: CcmDeployment;
  /** The control-plane nodes its nodeSelector matches. */
  readonly selected: readonly NodeFacts[];
  /** Of those, the ones whose blocking taints it tolerates: where its pods run. */
  readonly fits: readonly NodeFacts[];
  /** Each blocking taint of a selected node that it does not tolerate, with the nodes carrying it. */
  readonly untolerated: readonly UntoleratedTaint[];
  readonly workers: readonly NodeFacts[];
  readonly toleratesUninitialized: boolean;
  readonly problems: readonly string[];
  readonly details: readonly string[];
}

function judge(d: CcmDeployment, cp: readonly NodeFacts[], all: readonly NodeFacts[]): Verdict {
  const placement = {
    nodeSelector: d.nodeSelector,
    tolerations: [...d.tolerations, ...daemonSetTolerations(d.hostNetwork)],
  };
  const selected: NodeFacts[] = [];
  const fits: NodeFacts[] = [];
  const untolerated = new Map<string, { taint: Taint; nodes: string[] }>();
  const details: string[] = [];
  for (const n of cp) {
    const v = placementOnNode(placement, n);
    if (v.fits) {
      selected.push(n);
      fits.push(n);
      continue;
    }
    if (v.selectorMismatch.length === 0) {
      selected.push(n);
      for (const taint of v.untolerated) {
        const key = formatTaint(taint);
        const entry = untolerated.get(key) ?? { taint, nodes: [] };
        entry.nodes.push(n.name);
        untolerated.set(key, entry);
      }
    }
    details.push(
      `${n.name}: ${[
        v.selectorMismatch.length > 0 ? `nodeSelector ${v.selectorMismatch.join(', ')} not matched` : '',
        v.untolerated.length > 0 ? `untolerated ${v.untolerated.map(formatTaint).join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; ')}`,
    );
  }
  const workers = all.filter((n) => !isControlPlaneNode(n) && placementOnNode(placement, n).fits);
  const toleratesUninitialized = d.tolerations.some((t) => toleratesTaint(t, UNINITIALIZED));
  const problems = [
    ...(toleratesUninitialized ? [] : ['uninitialized']),
    ...(workers.length > 0 ? ['workers'] : []),
  ];
  return {
    deployment: d,
    selected,
    fits,
    untolerated: [...untolerated.values()],
    workers,
    toleratesUninitialized,
    problems,
    details,
  };
}

/** Taints from a node's condition (not-ready, unreachable...): they go away with the condition, not with a toleration. */
const isConditionTaint = (t: Taint): boolean => t.key.startsWith('node.kubernetes.io/');

function nodeList(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

/** "selects 3 control-plane nodes but tolerates none of them: <taint> on <nodes>; add the toleration {...}". */
function untoleratedSummary(v: Verdict): string {
  const how =
    v.fits.length === 0
      ? `selects ${plural(v.selected.length, 'control-plane node')} but tolerates none of them`
      : `tolerates ${v.fits.length} of the ${plural(v.selected.length, 'control-plane node')} it selects`;
  const taints = v.untolerated.map((u) => `${formatTaint(u.taint)} on ${nodeList(u.nodes)}`).join('; ');
  const toAdd = v.untolerated.filter((u) => !isConditionTaint(u.taint)).map((u) => tolerationFor(u.taint));
  const action =
    toAdd.length > 0
      ? `; add the toleration${toAdd.length > 1 ? 's' : ''} ${toAdd.map(formatToleration).join(', ')}`
      : '';
  return `${how}: ${taints}${action}`;
}

/** Adds the missing tolerations, keeping the ones the CCM has (a list is replaced whole, by Helm and by a patch). */
function tolerationFix(v: Verdict, distro: string): Fix[] {
  const missing = v.untolerated.filter((u) => !isConditionTaint(u.taint));
  if (missing.length === 0) return [];
  const d = v.deployment;
  const tolerations = [...d.tolerations, ...missing.map((u) => tolerationFor(u.taint))];
  const which = missing.map((u) => formatTaint(u.taint)).join(', ');
  if (d.kind === 'daemonset') {
    const name = /DaemonSet [^/]+\/(.+)$/.exec(d.source)?.[1] ?? CCM_DAEMONSET;
    const patch = [{ op: 'add', path: '/spec/template/spec/tolerations', value: tolerations }];
    return [
      {
        type: 'commands',
        description: `tolerate ${which} in the DaemonSet (and in the chart values, or the next helm upgrade reverts it)`,
        commands: [
          `kubectl -n ${CCM_NAMESPACE} patch daemonset ${name} --type=json -p '${JSON.stringify(patch)}'`,
        ],
      },
    ];
  }
  return [
    {
      type: 'config',
      description: `tolerate ${which} in the chart values (Helm replaces the tolerations list: this is the whole list)`,
      target: chartValuesTarget(d, distro),
      snippet: stringify({ tolerations }),
      commands: [],
    },
  ];
}

function chartValuesTarget(d: CcmDeployment, distro: string): string {
  if (d.kind === 'planned' && d.source !== 'uproot plan') return d.source;
  if (d.kind === 'helmchart')
    return `aws-cloud-controller-manager chart values (${d.source} spec.valuesContent)`;
  return distro === 'rke2'
    ? "aws-cloud-controller-manager chart values (a HelmChart in spec.rkeConfig.additionalManifest: uproot's plan keeps its tolerations)"
    : 'aws-cloud-controller-manager chart values';
}

/** Why the chart's defaults fit nothing: their nodeSelector, or the taints they do not tolerate. */
function defaultsProblem(v: Verdict): string {
  if (v.selected.length === 0) return `match none of them (${describeSelector(v.deployment)})`;
  return `tolerate none of them (${v.untolerated.map((u) => formatTaint(u.taint)).join(', ')})`;
}

function describeSelector(d: CcmDeployment): string {
  const entries = Object.entries(d.nodeSelector);
  return entries.length === 0
    ? 'no nodeSelector'
    : `nodeSelector ${entries.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')}`;
}

/**
 * The values uproot would install: on RKE2/RKE the planner's own chart values (src/core/distros), so a
 * cluster whose taints the plan does not tolerate is caught here; elsewhere the distribution's role label
 * plus tolerations for every control-plane taint.
 */
function plannedDeployment(ctx: CheckContext): CcmDeployment {
  const flavor = ctx.profile.distro;
  if (flavor === 'rke2' || flavor === 'rke') {
    const values = renderCcmValues({ flavor, imageTag: 'v1.26.11', leaderMigration: true });
    return { ...fromChartValues('planned', 'uproot plan', valuesYaml(values)), source: 'uproot plan' };
  }
  const rec = recommendedPlacement(ctx.profile.distro);
  return {
    kind: 'planned',
    source: 'uproot plan',
    args: [],
    nodeSelector: selectorFor(ctx, rec.nodeSelector),
    tolerations: tolerationsFor(ctx.profile.controlPlane),
    hostNetwork: true,
  };
}

/** The recommended selector if every control-plane node has it, else a label they all share. */
function selectorFor(ctx: CheckContext, recommended: Record<string, string>): Record<string, string> {
  const cp = ctx.profile.controlPlane;
  const all = (sel: Record<string, string>) =>
    cp.every((n) => Object.entries(sel).every(([k, v]) => n.labels[k] === v));
  if (all(recommended)) return recommended;
  for (const key of [
    'node-role.kubernetes.io/control-plane',
    'node-role.kubernetes.io/controlplane',
    'node-role.kubernetes.io/master',
  ]) {
    const value = cp[0]?.labels[key];
    if (value !== undefined && all({ [key]: value })) return { [key]: value };
  }
  return recommended;
}

function tolerationsFor(cp: readonly NodeFacts[]): Toleration[] {
  const out: Toleration[] = [
    { key: UNINITIALIZED.key, value: UNINITIALIZED.value, effect: UNINITIALIZED.effect },
  ];
  const seen = new Set<string>();
  for (const n of cp) {
    for (const t of blockingTaints(n)) {
      if (t.key === UNINITIALIZED.key || t.key.startsWith('node.kubernetes.io/')) continue;
      const k = `${t.key}:${t.effect}`;
      if (!seen.has(k)) {
        seen.add(k);
        out.push({ key: t.key, operator: 'Exists', effect: t.effect });
      }
    }
  }
  return out;
}

function fixFor(ctx: CheckContext, d: CcmDeployment, cp: readonly NodeFacts[]): Fix {
  const nodeSelector = selectorFor(ctx, recommendedPlacement(ctx.profile.distro).nodeSelector);
  const tolerations = tolerationsFor(cp);
  if (d.kind === 'daemonset') {
    const name = /DaemonSet [^/]+\/(.+)$/.exec(d.source)?.[1] ?? CCM_DAEMONSET;
    const patch = [
      { op: 'replace', path: '/spec/template/spec/nodeSelector', value: nodeSelector },
      { op: 'replace', path: '/spec/template/spec/tolerations', value: tolerations },
    ];
    return {
      type: 'commands',
      description: `set the DaemonSet's nodeSelector and tolerations to match the control-plane nodes (and the chart values, or the next helm upgrade reverts it)`,
      commands: [
        `kubectl -n ${CCM_NAMESPACE} patch daemonset ${name} --type=json -p '${JSON.stringify(patch)}'`,
      ],
    };
  }
  // Helm merges nodeSelector maps: null removes the chart's default key when another key is used.
  const selectorValues: Record<string, string | null> = { ...nodeSelector };
  if (!('node-role.kubernetes.io/control-plane' in nodeSelector))
    selectorValues['node-role.kubernetes.io/control-plane'] = null;
  return {
    type: 'config',
    description: `set the chart's nodeSelector and tolerations for ${ctx.profile.distro}`,
    target: chartValuesTarget(d, ctx.profile.distro),
    snippet: stringify({ nodeSelector: selectorValues, tolerations }),
    commands: [],
  };
}
