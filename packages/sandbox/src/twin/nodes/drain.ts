import { isRecord, metaOf, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';

/**
 * `kubectl drain` as the distributions run it after cordoning (k8s.io/kubectl pkg/drain: drain.go
 * GetPodsForDeletion, DeleteOrEvictPods; filters.go makeFilters): Rancher's machine-drain controller
 * (rancher/rancher pkg/controllers/capr/machinedrain/machinedrain.go performDrain) and `rke up`
 * (rancher/rke services/node_util.go cordonAndDrainNode) both call drain.RunNodeDrain with a drain.Helper.
 *
 * The filters, in kubectl's order: pods deleted longer ago than skipWaitForDeleteTimeoutSeconds are skipped;
 * DaemonSet pods are left alone with ignoreDaemonSets, else refused; mirror (static) pods are skipped;
 * running pods with an emptyDir need deleteEmptyDirData; running pods without a controller need force.
 * Finished pods (Succeeded, Failed) always go. The rest are evicted (deleted with disableEviction).
 * PodDisruptionBudgets: the twin serves none (no policy/v1 resource, no disruption controller), so no eviction
 * is refused with 429; the timeout bounds nothing here for that reason.
 */

export interface DrainOptions {
  readonly enabled: boolean;
  readonly force: boolean;
  readonly ignoreDaemonSets: boolean;
  readonly deleteEmptyDirData: boolean;
  readonly disableEviction: boolean;
  readonly gracePeriodSeconds: number;
  readonly timeoutSeconds: number;
  readonly skipWaitForDeleteTimeoutSeconds: number;
}

export type DrainResult =
  | { readonly ok: true; readonly evicted: readonly string[]; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly error: string };

const DAEMONSET_FATAL = 'DaemonSet-managed Pods (use --ignore-daemonsets to ignore)';
const DAEMONSET_WARNING = 'ignoring DaemonSet-managed Pods';
const LOCAL_STORAGE_FATAL = 'Pods with local storage (use --delete-emptydir-data to override)';
const UNMANAGED_FATAL = 'Pods that declare no controller (use --force to override)';
const UNMANAGED_WARNING = 'deleting Pods that declare no controller';
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

type Verdict =
  | { readonly kind: 'delete'; readonly warning?: string }
  | { readonly kind: 'skip'; readonly warning?: string }
  | { readonly kind: 'error'; readonly message: string };

function controllerOf(pod: KubeObject): { kind?: string; apiVersion?: string; name?: string } | undefined {
  const refs = metaOf(pod).ownerReferences;
  return Array.isArray(refs)
    ? (refs as { controller?: boolean; kind?: string; apiVersion?: string; name?: string }[]).find(
        (r) => r.controller === true,
      )
    : undefined;
}

function finished(pod: KubeObject): boolean {
  const phase = isRecord(pod.status) ? pod.status.phase : undefined;
  return phase === 'Succeeded' || phase === 'Failed';
}

function hasEmptyDir(pod: KubeObject): boolean {
  const volumes = isRecord(pod.spec) && Array.isArray(pod.spec.volumes) ? pod.spec.volumes : [];
  return volumes.some((v) => isRecord(v) && v.emptyDir !== undefined && v.emptyDir !== null);
}

/** One pod through kubectl's filters (filters.go); the last filter's warning is the one kept, as upstream. */
function filterPod(kube: TwinKube, pod: KubeObject, options: DrainOptions, now: number): Verdict {
  const meta = metaOf(pod);
  const deletedAt = typeof meta.deletionTimestamp === 'string' ? Date.parse(meta.deletionTimestamp) : NaN;
  if (
    options.skipWaitForDeleteTimeoutSeconds > 0 &&
    (now - deletedAt) / 1000 > options.skipWaitForDeleteTimeoutSeconds
  )
    return { kind: 'skip' };
  const controller = controllerOf(pod);
  let warning: string | undefined;
  if (controller?.kind === 'DaemonSet' && controller.apiVersion === 'apps/v1' && !finished(pod)) {
    const ds = kube.get(R.daemonsets, meta.namespace, controller.name ?? '');
    if (!ds && !options.force)
      return { kind: 'error', message: `daemonsets.apps "${controller.name ?? ''}" not found` };
    if (ds && !options.ignoreDaemonSets) return { kind: 'error', message: DAEMONSET_FATAL };
    if (ds) return { kind: 'skip', warning: DAEMONSET_WARNING };
    warning = `daemonsets.apps "${controller.name ?? ''}" not found`;
  }
  if (isRecord(meta.annotations) && MIRROR_ANNOTATION in meta.annotations) return { kind: 'skip' };
  if (hasEmptyDir(pod) && !finished(pod) && !options.deleteEmptyDirData)
    return { kind: 'error', message: LOCAL_STORAGE_FATAL };
  if (!finished(pod) && !controller) {
    if (!options.force) return { kind: 'error', message: UNMANAGED_FATAL };
    warning = UNMANAGED_WARNING;
  }
  return warning ? { kind: 'delete', warning } : { kind: 'delete' };
}

/** drain.RunNodeDrain on a cordoned node: refuses with kubectl's aggregated errors, or evicts what it may. */
export function drainNode(kube: TwinKube, nodeName: string, options: DrainOptions, now: number): DrainResult {
  const pods = kube.list(R.pods, { fieldSelector: `spec.nodeName=${nodeName}` });
  const errors = new Map<string, string[]>();
  const warnings = new Set<string>();
  const doomed: KubeObject[] = [];
  for (const pod of pods) {
    const verdict = filterPod(kube, pod, options, now);
    const name = `${metaOf(pod).namespace ?? ''}/${metaOf(pod).name ?? ''}`;
    if (verdict.kind === 'error') errors.set(verdict.message, [...(errors.get(verdict.message) ?? []), name]);
    else {
      if (verdict.warning) warnings.add(verdict.warning);
      if (verdict.kind === 'delete') doomed.push(pod);
    }
  }
  if (errors.size > 0) {
    // PodDeleteList.errors: "cannot delete <message>: <ns/pod>, <ns/pod>", aggregated like utilerrors.
    const list = [...errors].map(([message, names]) => `cannot delete ${message}: ${names.join(', ')}`);
    return { ok: false, error: list.length === 1 ? list[0]! : `[${list.join(', ')}]` };
  }
  for (const pod of doomed) kube.delete(R.pods, metaOf(pod).namespace, metaOf(pod).name ?? '');
  return {
    ok: true,
    evicted: doomed.map((p) => `${metaOf(p).namespace ?? ''}/${metaOf(p).name ?? ''}`),
    warnings: [...warnings],
  };
}
