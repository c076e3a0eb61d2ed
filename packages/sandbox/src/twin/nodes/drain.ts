import type { Clock } from 'uproot';
import { ApiStatusError } from '../../apiserver/status/api-status-error.js';
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
 * Finished pods (Succeeded, Failed) always go. The rest are evicted through the pods/eviction subresource's
 * own logic (apiserver/policy/evict.ts, so PodDisruptionBudgets are honoured: a budget that allows no
 * disruption answers 429 and the drain retries every 5 s), or deleted with disableEviction; then the drain
 * waits for them to be gone. The timeout (timeoutSeconds, 0 = none) bounds the retries and the wait:
 * kubectl's "global timeout reached: <timeout>" when it runs out. Waits are on the injected clock.
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

/** PodDeleteList.errors: "cannot delete <message>: <ns/pod>, <ns/pod>", aggregated like utilerrors. */
function refusal(errors: ReadonlyMap<string, readonly string[]>): string {
  const list = [...errors].map(([message, names]) => `cannot delete ${message}: ${names.join(', ')}`);
  return aggregate(list);
}

/** utilerrors.NewAggregate's Error(): one error as is, more in brackets. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

/** Go's time.Duration String() for whole seconds ("5s", "1m0s", "2h0m0s"). */
export function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/** drain.go: 0 means no timeout (MaxInt64), printed as Go prints it. */
const NO_TIMEOUT = '2562047h47m16.854775807s';

/** kubectl's default EvictErrorRetryDelay (cmd/drain: 5 s), which Rancher's and RKE's helpers keep. */
export const EVICT_RETRY_MS = 5_000;

/** waitForDelete's poll interval (drain.go: 1 s). */
const WAIT_INTERVAL_MS = 1_000;

export interface DrainContext {
  readonly kube: TwinKube;
  readonly clock: Clock;
  /** The helper's ErrOut: eviction retries ("error when evicting pods/... (will retry after 5s): ..."). */
  readonly errOut?: (line: string) => void;
}

/**
 * drain.RunNodeDrain on a cordoned node: refuses with kubectl's aggregated errors, or evicts (deletes with
 * disableEviction) what it may and waits for the pods to be gone, all within the options' timeout.
 */
export async function drainNode(
  ctx: DrainContext,
  nodeName: string,
  options: DrainOptions,
): Promise<DrainResult> {
  const { kube, clock } = ctx;
  const pods = kube.list(R.pods, { fieldSelector: `spec.nodeName=${nodeName}` });
  const errors = new Map<string, string[]>();
  const warnings = new Set<string>();
  const doomed: KubeObject[] = [];
  for (const pod of pods) {
    const verdict = filterPod(kube, pod, options, clock.now());
    const name = `${metaOf(pod).namespace ?? ''}/${metaOf(pod).name ?? ''}`;
    if (verdict.kind === 'error') errors.set(verdict.message, [...(errors.get(verdict.message) ?? []), name]);
    else {
      if (verdict.warning) warnings.add(verdict.warning);
      if (verdict.kind === 'delete') doomed.push(pod);
    }
  }
  if (errors.size > 0) return { ok: false, error: refusal(errors) };
  const deadline = options.timeoutSeconds > 0 ? clock.now() + options.timeoutSeconds * 1000 : undefined;
  const failures = options.disableEviction
    ? await deletePods(ctx, doomed, deadline)
    : (await Promise.all(doomed.map((pod) => evictOne(ctx, pod, options, deadline)))).filter(
        (e): e is string => e !== undefined,
      );
  if (failures.length > 0) return { ok: false, error: aggregate(failures) };
  return {
    ok: true,
    evicted: doomed.map((p) => `${metaOf(p).namespace ?? ''}/${metaOf(p).name ?? ''}`),
    warnings: [...warnings],
  };
}

function reasonOf(error: unknown): string | undefined {
  return error instanceof ApiStatusError ? error.reason : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * drain.go evictPods, one pod's goroutine: evict; 404 is done; 429 (a budget allows no disruption) is
 * printed and retried after EvictErrorRetryDelay with a fresh copy of the pod; anything else fails. The
 * global timeout is checked before every attempt. Then waitForDelete under the same deadline.
 */
async function evictOne(
  ctx: DrainContext,
  pod: KubeObject,
  options: DrainOptions,
  deadline: number | undefined,
): Promise<string | undefined> {
  const { kube, clock } = ctx;
  const namespace = metaOf(pod).namespace ?? '';
  const name = metaOf(pod).name ?? '';
  const timeout = options.timeoutSeconds > 0 ? goDuration(options.timeoutSeconds) : NO_TIMEOUT;
  for (;;) {
    if (deadline !== undefined && clock.now() >= deadline)
      return `error when evicting pods/"${name}" -n "${namespace}": global timeout reached: ${timeout}`;
    try {
      const answer = kube.evict(namespace, name);
      // client-go turns the 500 Status into an error carrying its message.
      if (answer.kind === 'multiple-budgets')
        return `error when evicting pods/"${name}" -n "${namespace}": ${answer.message}`;
      break;
    } catch (error) {
      const reason = reasonOf(error);
      if (reason === 'NotFound') return undefined;
      if (reason !== 'TooManyRequests')
        return `error when evicting pods/"${name}" -n "${namespace}": ${messageOf(error)}`;
      ctx.errOut?.(
        `error when evicting pods/"${name}" -n "${namespace}" (will retry after ${goDuration(EVICT_RETRY_MS / 1000)}): ${messageOf(error)}`,
      );
      await clock.sleep(EVICT_RETRY_MS);
    }
  }
  const gone = await waitForDelete(ctx, [pod], deadline);
  return gone
    ? undefined
    : `error when waiting for pod "${name}" in namespace "${namespace}" to terminate: context deadline exceeded`;
}

/** drain.go deletePods: delete each (404 is fine), then wait for all under the global timeout. */
async function deletePods(
  ctx: DrainContext,
  pods: readonly KubeObject[],
  deadline: number | undefined,
): Promise<string[]> {
  for (const pod of pods) {
    try {
      ctx.kube.store.delete(R.pods, metaOf(pod).namespace, metaOf(pod).name ?? '');
    } catch (error) {
      if (reasonOf(error) !== 'NotFound') return [messageOf(error)];
    }
  }
  return (await waitForDelete(ctx, pods, deadline)) ? [] : ['context deadline exceeded'];
}

/**
 * drain.go waitForDelete: polls every second (the first poll at once) until each pod is gone or replaced
 * (another UID under its name); false when the deadline passes first.
 */
async function waitForDelete(
  ctx: DrainContext,
  pods: readonly KubeObject[],
  deadline: number | undefined,
): Promise<boolean> {
  let pending = [...pods];
  for (;;) {
    pending = pending.filter((pod) => {
      const current = ctx.kube.get(R.pods, metaOf(pod).namespace, metaOf(pod).name ?? '');
      return current !== undefined && metaOf(current).uid === metaOf(pod).uid;
    });
    if (pending.length === 0) return true;
    if (deadline !== undefined && ctx.clock.now() + WAIT_INTERVAL_MS > deadline) return false;
    await ctx.clock.sleep(WAIT_INTERVAL_MS);
  }
}
