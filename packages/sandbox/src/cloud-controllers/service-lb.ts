import type { V1Node, V1Service } from '@kubernetes/client-node';
import { ensureClassic, deleteClassic } from './classic-load-balancer.js';
import {
  Backoff,
  ControllerStopped,
  guard,
  runPeriodically,
  type ControllerContext,
} from './controller-context.js';
import { errorText } from './error-text.js';
import { isKubeNotFound } from './kube-api.js';
import {
  defaultLoadBalancerName,
  hasCleanupFinalizer,
  LB_CLEANUP_FINALIZER,
  loadBalancerKind,
  needsCleanup,
  serviceKey,
  targetInstanceIds,
  wantsLoadBalancer,
} from './load-balancer-spec.js';
import { planLoadBalancer } from './load-balancer-plan.js';
import { deleteNlb, ensureNlb } from './network-load-balancer.js';
import { ComponentError } from '../component-error.js';

/** How often services are re-examined when no watch event wakes the controller. */
export const SERVICE_SYNC_PERIOD_MS = 5_000;

/** What the controller remembers about a Service it has synced (per process: a new leader starts empty). */
interface Synced {
  readonly resourceVersion: string;
  readonly nodeSet: string;
}

export type ServiceSyncResult = 'ensured' | 'deleted' | 'failed' | 'skipped';

/**
 * The service (load balancer) controller: LoadBalancer Services get a classic ELB (or an NLB with
 * `aws-load-balancer-type: nlb`) named `a` + UID, in the cluster's subnets, tagged with the cluster and
 * service name, with the nodes' instances registered; an existing load balancer of that name is adopted and
 * updated in place, so its hostname survives a change of owner. The finalizer
 * `service.kubernetes.io/load-balancer-cleanup` makes deletion (or a type change) remove the load balancer
 * first. A Service is synced again when it changes, when the set of target nodes changes, or after a failure
 * (with backoff); a freshly started controller syncs every Service once, as the real one does on start.
 */
export async function runServiceController(ctx: ControllerContext, signal: AbortSignal): Promise<void> {
  const services = await ctx.informers.services();
  const nodes = await ctx.informers.nodes();
  const synced = new Map<string, Synced>();
  const backoff = new Backoff(2_000, 5 * 60_000);
  await runPeriodically({
    clock: ctx.clock,
    signal,
    periodMs: SERVICE_SYNC_PERIOD_MS,
    wake: (notify) => {
      const a = services.onChange(notify);
      const b = nodes.onChange(notify);
      return () => {
        a();
        b();
      };
    },
    pass: () => syncServices(ctx, signal, services.list(), nodes.list(), synced, backoff),
    onError: (error) => ctx.log(`service controller sync failed: ${errorText(error)}`),
  });
}

export async function syncServices(
  ctx: ControllerContext,
  signal: AbortSignal,
  services: readonly V1Service[],
  nodes: readonly V1Node[],
  synced: Map<string, Synced>,
  backoff: Backoff,
): Promise<void> {
  const instanceIds = targetInstanceIds(nodes);
  const nodeSet = instanceIds.join(',');
  for (const service of services) {
    const key = serviceKey(service);
    if (!wantsLoadBalancer(service) && !hasCleanupFinalizer(service)) {
      synced.delete(key);
      continue;
    }
    if (loadBalancerKind(service) === 'external') continue;
    const last = synced.get(key);
    const changed =
      !last || last.resourceVersion !== (service.metadata?.resourceVersion ?? '') || last.nodeSet !== nodeSet;
    if (!changed || !backoff.due(key, ctx.clock.now())) continue;
    let outcome: Outcome;
    try {
      outcome = needsCleanup(service)
        ? await deleteLoadBalancer(ctx, signal, service)
        : await ensureLoadBalancer(ctx, signal, service, instanceIds);
    } catch (error) {
      if (error instanceof ControllerStopped) throw error;
      ctx.log(`error processing service ${key} (retrying with backoff): ${errorText(error)}`);
      outcome = { result: 'failed', resourceVersion: '' };
    }
    if (outcome.result === 'failed') {
      backoff.failed(key, ctx.clock.now());
      synced.delete(key);
    } else {
      backoff.succeeded(key);
      synced.set(key, { resourceVersion: outcome.resourceVersion, nodeSet });
    }
  }
}

interface Outcome {
  readonly result: ServiceSyncResult;
  /** The Service's resourceVersion after our own writes, so they do not trigger another sync. */
  readonly resourceVersion: string;
}

const targetOf = (s: V1Service) =>
  ({
    kind: 'Service',
    name: s.metadata?.name ?? '',
    namespace: s.metadata?.namespace,
    uid: s.metadata?.uid,
  }) as const;

export async function ensureLoadBalancer(
  ctx: ControllerContext,
  signal: AbortSignal,
  service: V1Service,
  instanceIds: readonly string[],
): Promise<Outcome> {
  const key = serviceKey(service);
  const [namespace = '', name = ''] = key.split('/');
  let current = service;
  guard(signal);
  ctx.record(`decide: ensure load balancer for service/${key}`);
  // syncLoadBalancerIfNeeded: any failure, from the finalizer to the status, is one SyncLoadBalancerFailed.
  try {
    if (!hasCleanupFinalizer(current)) {
      guard(signal);
      try {
        current = await ctx.kube.patchService(namespace, name, {
          metadata: { finalizers: [...(current.metadata?.finalizers ?? []), LB_CLEANUP_FINALIZER] },
        });
      } catch (error) {
        if (error instanceof ControllerStopped) throw error;
        throw new ComponentError(`failed to add load balancer cleanup finalizer: ${errorText(error)}`, {
          cause: error,
        });
      }
      ctx.record(`kube:patch service/${key} (add finalizer ${LB_CLEANUP_FINALIZER})`);
    }
    await ctx.events.event(targetOf(current), 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer');
    const plan = await planLoadBalancer(ctx, current, instanceIds);
    const result =
      plan.kind === 'nlb' ? await ensureNlb(ctx, signal, plan) : await ensureClassic(ctx, signal, plan);
    ctx.record(`decide: service/${key} ${result.outcome} load balancer ${plan.name} (${result.hostname})`);
    const have = (current.status?.loadBalancer?.ingress ?? []).map((i) => i.hostname ?? i.ip ?? '');
    const want = result.hostname ? [result.hostname] : [];
    if (have.join(',') !== want.join(',')) {
      guard(signal);
      try {
        current = await ctx.kube.patchServiceStatus(namespace, name, {
          status: { loadBalancer: { ingress: want.map((h) => ({ hostname: h })) } },
        });
      } catch (error) {
        if (isKubeNotFound(error)) return { result: 'skipped', resourceVersion: '' };
        throw new ComponentError(`failed to update load balancer status: ${errorText(error)}`, {
          cause: error,
        });
      }
      ctx.record(`kube:patch service/${key} status (ingress ${want.join(',') || 'none'})`);
    }
  } catch (error) {
    if (error instanceof ControllerStopped) throw error;
    guard(signal);
    ctx.record(`decide: service/${key} load balancer failed (${errorText(error)})`);
    await ctx.events.event(
      targetOf(current),
      'Warning',
      'SyncLoadBalancerFailed',
      `Error syncing load balancer: ${errorText(error)}`,
    );
    return { result: 'failed', resourceVersion: current.metadata?.resourceVersion ?? '' };
  }
  await ctx.events.event(targetOf(current), 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer');
  return { result: 'ensured', resourceVersion: current.metadata?.resourceVersion ?? '' };
}

export async function deleteLoadBalancer(
  ctx: ControllerContext,
  signal: AbortSignal,
  service: V1Service,
): Promise<Outcome> {
  const key = serviceKey(service);
  const [namespace = '', name = ''] = key.split('/');
  const lbName = defaultLoadBalancerName(service.metadata?.uid ?? '');
  guard(signal);
  ctx.record(`decide: delete load balancer ${lbName} of service/${key}`);
  await ctx.events.event(targetOf(service), 'Normal', 'DeletingLoadBalancer', 'Deleting load balancer');
  try {
    if (loadBalancerKind(service) === 'nlb') await deleteNlb(ctx, signal, lbName);
    else await deleteClassic(ctx, signal, lbName, (await ctx.cloud.clusterTagging()).clusterId);
  } catch (error) {
    if (error instanceof ControllerStopped) throw error;
    guard(signal);
    await ctx.events.event(
      targetOf(service),
      'Warning',
      'SyncLoadBalancerFailed',
      `Error deleting load balancer: ${errorText(error)}`,
    );
    return { result: 'failed', resourceVersion: service.metadata?.resourceVersion ?? '' };
  }
  await ctx.events.event(targetOf(service), 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
  let current = service;
  try {
    if ((current.status?.loadBalancer?.ingress ?? []).length > 0) {
      guard(signal);
      current = await ctx.kube.patchServiceStatus(namespace, name, {
        status: { loadBalancer: { ingress: null } },
      });
      ctx.record(`kube:patch service/${key} status (clear ingress)`);
    }
    guard(signal);
    current = await ctx.kube.patchService(namespace, name, {
      metadata: {
        finalizers: (current.metadata?.finalizers ?? []).filter((f) => f !== LB_CLEANUP_FINALIZER),
      },
    });
    ctx.record(`kube:patch service/${key} (remove finalizer ${LB_CLEANUP_FINALIZER})`);
  } catch (error) {
    if (!isKubeNotFound(error)) throw error;
  }
  return { result: 'deleted', resourceVersion: current.metadata?.resourceVersion ?? '' };
}
