import {
  TAINTS,
  firstUntoleratedTaint,
  formatTaint,
  isTolerated,
  type Taint,
  type Toleration,
} from './taints.js';

/** The parts of a Node that placement reads. */
export interface PlacementNode {
  readonly metadata: { readonly name: string; readonly labels?: Readonly<Record<string, string>> };
  readonly spec?: { readonly unschedulable?: boolean; readonly taints?: readonly Taint[] };
}

export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | string;
  readonly values?: readonly string[];
}

export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[];
  readonly matchFields?: readonly NodeSelectorRequirement[];
}

/** The parts of a PodSpec that placement reads. */
export interface PlacementPodSpec {
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly Toleration[];
  readonly affinity?: {
    readonly nodeAffinity?: {
      readonly requiredDuringSchedulingIgnoredDuringExecution?: {
        readonly nodeSelectorTerms?: readonly NodeSelectorTerm[];
      };
    };
  };
}

export type PlacementResult = { readonly fits: true } | { readonly fits: false; readonly reason: string };

const FITS: PlacementResult = { fits: true };

function requirementMatches(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1) return false;
      const a = Number.parseInt(value, 10);
      const b = Number.parseInt(values[0]!, 10);
      if (Number.isNaN(a) || Number.isNaN(b)) return false;
      return req.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

function termMatches(term: NodeSelectorTerm, node: PlacementNode): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  // An empty term matches nothing (upstream: "a null or empty node selector term matches no objects").
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return (
    exprs.every((r) => requirementMatches(r, labels[r.key])) &&
    fields.every((r) => r.key === 'metadata.name' && requirementMatches(r, node.metadata.name))
  );
}

/** nodeSelector and required node affinity (NodeAffinity filter). */
export function matchesNodeSelection(spec: PlacementPodSpec, node: PlacementNode): PlacementResult {
  const labels = node.metadata.labels ?? {};
  for (const [key, value] of Object.entries(spec.nodeSelector ?? {})) {
    if (labels[key] !== value)
      return { fits: false, reason: "node(s) didn't match Pod's node affinity/selector" };
  }
  const terms =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms && !terms.some((t) => termMatches(t, node))) {
    return { fits: false, reason: "node(s) didn't match Pod's node affinity/selector" };
  }
  return FITS;
}

/**
 * Whether a pod may be placed on a node: selection, the cordon (NodeUnschedulable filter, tolerated by the
 * unschedulable taint's toleration), and NoSchedule/NoExecute taints (TaintToleration filter).
 */
export function canSchedule(spec: PlacementPodSpec, node: PlacementNode): PlacementResult {
  const selection = matchesNodeSelection(spec, node);
  if (!selection.fits) return selection;
  const tolerations = spec.tolerations ?? [];
  if (
    node.spec?.unschedulable &&
    !isTolerated({ key: TAINTS.unschedulable, effect: 'NoSchedule' }, tolerations)
  ) {
    return { fits: false, reason: 'node(s) were unschedulable' };
  }
  const taint = firstUntoleratedTaint(node.spec?.taints ?? [], tolerations);
  if (taint) return { fits: false, reason: untoleratedReason(taint) };
  return FITS;
}

/**
 * The TaintToleration filter's reason, key and value only (kubernetes/kubernetes
 * pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go, 1.25+): a taint without a value
 * reads `{node-role.kubernetes.io/etcd: }`.
 */
function untoleratedReason(taint: Taint): string {
  return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
}

/** A running pod must leave only on a NoExecute taint it does not tolerate (or when it no longer fits selection). */
export function canKeepRunning(spec: PlacementPodSpec, node: PlacementNode): PlacementResult {
  const selection = matchesNodeSelection(spec, node);
  if (!selection.fits) return selection;
  const taint = firstUntoleratedTaint(node.spec?.taints ?? [], spec.tolerations ?? [], ['NoExecute']);
  if (taint)
    return { fits: false, reason: `node(s) had untolerated NoExecute taint {${formatTaint(taint)}}` };
  return FITS;
}
