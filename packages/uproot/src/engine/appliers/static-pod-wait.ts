/**
 * kubeadm rolls node by node: after a static pod manifest is written on a node, the kubelet restarts that
 * component, and the next node is only touched once the component runs there with the new image and flags
 * and is ready (what a person watching `kubectl -n kube-system get pod <component>-<node>` waits for). So at
 * most one kube-controller-manager or cloud-controller-manager is down at a time. The image counts as much
 * as the flags: an upgrade hop may change only the image tag, and a check of the flags alone would find every
 * node caught up at once and write them all back to back (issue 30).
 */
import { parseDocument } from 'yaml';
import type { Clock } from '../../clock/index.js';
import { imageTag } from '../../core/model/index.js';
import { ExitCode, UprootError } from '../../errors/index.js';
import type { ComponentPodFacts, LeaseFacts, ManagerComponent } from '../gates/gate-facts.js';
import { handedOver } from './roll-order.js';

const MANAGERS: readonly ManagerComponent[] = ['kube-controller-manager', 'cloud-controller-manager'];

/** What a manager's static pod manifest runs: the image (when it names one) and the flags, sorted. */
export interface ManagerManifest {
  readonly component: ManagerComponent;
  readonly flags: readonly string[];
  readonly image?: string;
}

/** The manager a manifest runs, its image and flags; undefined for other files (the apiserver, config files). */
export function managerManifest(content: string): ManagerManifest | undefined {
  let pod: unknown;
  try {
    pod = parseDocument(content).toJS();
  } catch {
    return undefined;
  }
  const p = pod as {
    kind?: unknown;
    metadata?: { labels?: Record<string, unknown> };
    spec?: { containers?: { name?: unknown; image?: unknown; command?: unknown; args?: unknown }[] };
  };
  if (p?.kind !== 'Pod') return undefined;
  const container = p.spec?.containers?.[0];
  const named = p.metadata?.labels?.component ?? container?.name;
  const component = MANAGERS.find((m) => m === named);
  if (!component || !container) return undefined;
  const words = [container.command, container.args].flatMap((v) => (Array.isArray(v) ? v.map(String) : []));
  const image = typeof container.image === 'string' && container.image ? container.image : undefined;
  return { component, flags: flagsOnly(words), ...(image ? { image } : {}) };
}

function flagsOnly(words: readonly string[]): string[] {
  return words.filter((w) => w.startsWith('--')).sort();
}

export type CaughtUp = { readonly type: 'caught-up' } | { readonly type: 'waiting'; readonly detail: string };

/**
 * Whether two image references run the same release: the same tag when both have one (a registry mirror or
 * a webhook may rewrite the registry part of a mirror pod's image, never its tag), else the same reference.
 */
function sameImage(running: string | undefined, wanted: string): boolean {
  if (running === undefined) return false;
  const [a, b] = [imageTag(running), imageTag(wanted)];
  return a !== undefined && b !== undefined ? a === b : running === wanted;
}

/** Whether `node` runs the manifest's manager with exactly its flags and its image, running and ready. */
export function staticPodCaughtUp(
  pods: readonly ComponentPodFacts[],
  node: string,
  manifest: ManagerManifest,
): CaughtUp {
  const { component, flags } = manifest;
  const pod = pods.find((p) => p.nodeName === node);
  if (!pod) return { type: 'waiting', detail: `no ${component} pod on ${node} yet` };
  if (manifest.image !== undefined && !sameImage(pod.image, manifest.image))
    return {
      type: 'waiting',
      detail: `${component} on ${node} still runs image ${pod.image ?? '(none)'}, not ${manifest.image}`,
    };
  const running = flagsOnly(pod.args);
  if (running.join('\n') !== [...flags].join('\n')) {
    const missing = flags.filter((f) => !running.includes(f));
    const extra = running.filter((f) => !flags.includes(f));
    return {
      type: 'waiting',
      detail: `${component} on ${node} still runs the previous flags (${[...missing.map((f) => `missing ${f}`), ...extra.map((f) => `still ${f}`)].slice(0, 3).join(', ')})`,
    };
  }
  if (pod.phase !== 'Running' || pod.ready === false)
    return { type: 'waiting', detail: `${component} on ${node} is not ready (${pod.phase ?? 'no phase'})` };
  return { type: 'caught-up' };
}

export interface StaticPodWaitDeps {
  readonly clock: Clock;
  readonly pods: (component: ManagerComponent) => Promise<ComponentPodFacts[]>;
  readonly timeoutMs: number;
  readonly pollMs?: number;
  readonly signal?: AbortSignal;
}

/** Looks until `look` says done; past the deadline, throws what `failure` makes of the last detail. */
async function lookUntil(
  deps: StaticPodWaitDeps,
  look: () => Promise<{ readonly type: string; readonly detail?: string }>,
  failure: (detail: string) => UprootError,
): Promise<void> {
  const deadline = deps.clock.now() + deps.timeoutMs;
  for (;;) {
    const state = await look();
    if (state.detail === undefined) return;
    if (deps.clock.now() >= deadline) throw failure(state.detail);
    await deps.clock.sleep(deps.pollMs ?? 2000, deps.signal);
  }
}

/** Waits until the node runs the manifest's manager (image and flags); throws with the last state on timeout. */
export async function waitForStaticPod(
  deps: StaticPodWaitDeps,
  node: string,
  path: string,
  manifest: ManagerManifest,
): Promise<void> {
  await lookUntil(
    deps,
    async () => staticPodCaughtUp(await deps.pods(manifest.component), node, manifest),
    (detail) =>
      new UprootError(
        'UP-KUBEADM-STATIC-POD',
        `${path} was written on ${node}, but after ${Math.round(deps.timeoutMs / 1000)} s: ${detail}`,
        {
          source: 'environment',
          exitCode: ExitCode.failed,
          hint: `look at the kubelet on ${node} (journalctl -u kubelet; crictl ps -a | grep ${manifest.component}); once it runs, \`uproot migrate --resume\` writes the file again (harmless) and goes on`,
        },
      ),
  );
}

/**
 * After the leader's node restarted with the new manifest: waits until another manager leads (its lease held
 * by a live identity other than `before`), so the next restart (the other manager's roll, the next step) does
 * not begin while these controllers have no leader.
 */
export async function waitForHandover(
  deps: StaticPodWaitDeps,
  leases: () => Promise<readonly LeaseFacts[]>,
  node: string,
  component: ManagerComponent,
  before: string,
): Promise<void> {
  await lookUntil(
    deps,
    async () => handedOver(await leases(), component, before, deps.clock.now()),
    (detail) =>
      new UprootError(
        'UP-KUBEADM-LEASE-HANDOVER',
        `${component} on ${node} led and was restarted, and after ${Math.round(deps.timeoutMs / 1000)} s no other ${component} leads: ${detail}`,
        {
          source: 'environment',
          exitCode: ExitCode.failed,
          hint: `check the ${component} pods (kubectl -n kube-system get pods -l component=${component}; their logs say "attempting to acquire leader lease"); once one leads, \`uproot migrate --resume\` goes on`,
        },
      ),
  );
}

/**
 * uproot writes one manager manifest to every control-plane node, made from the one it read; that is only
 * right when every node runs the same flags (kubeadm writes them identically). Nodes already running the
 * target (a resumed step) are left out. Returns the differing nodes' flags, or undefined when all agree.
 */
export function differingNodes(
  pods: readonly ComponentPodFacts[],
  nodes: readonly string[],
  target: readonly string[],
): string[] | undefined {
  const key = (flags: readonly string[]): string => flags.join(' ');
  const byNode = nodes
    .map((node) => ({ node, flags: flagsOnly(pods.find((p) => p.nodeName === node)?.args ?? []) }))
    .filter((n) => n.flags.length > 0 && key(n.flags) !== key(target));
  const distinct = new Set(byNode.map((n) => key(n.flags)));
  if (distinct.size <= 1) return undefined;
  return byNode.map(
    (n) => `${n.node}: ${n.flags.filter((f) => !target.includes(f)).join(' ') || '(only fewer flags)'}`,
  );
}
