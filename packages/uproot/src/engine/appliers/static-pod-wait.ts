/**
 * kubeadm rolls node by node: after a static pod manifest is written on a node, the kubelet restarts that
 * component, and the next node is only touched once the component runs there with the new flags and is
 * ready (what a person watching `kubectl -n kube-system get pod <component>-<node>` waits for). So at most
 * one kube-controller-manager or cloud-controller-manager is down at a time.
 */
import { parseDocument } from 'yaml';
import type { Clock } from '../../clock/index.js';
import { ExitCode, UprootError } from '../../errors/index.js';
import type { ComponentPodFacts, ManagerComponent } from '../gates/gate-facts.js';

const MANAGERS: readonly ManagerComponent[] = ['kube-controller-manager', 'cloud-controller-manager'];

/** The manager a manifest runs and its flags; undefined for other files (the apiserver, config files). */
export function managerManifest(
  content: string,
): { readonly component: ManagerComponent; readonly flags: readonly string[] } | undefined {
  let pod: unknown;
  try {
    pod = parseDocument(content).toJS();
  } catch {
    return undefined;
  }
  const p = pod as {
    kind?: unknown;
    metadata?: { labels?: Record<string, unknown> };
    spec?: { containers?: { name?: unknown; command?: unknown; args?: unknown }[] };
  };
  if (p?.kind !== 'Pod') return undefined;
  const container = p.spec?.containers?.[0];
  const named = p.metadata?.labels?.component ?? container?.name;
  const component = MANAGERS.find((m) => m === named);
  if (!component || !container) return undefined;
  const words = [container.command, container.args].flatMap((v) => (Array.isArray(v) ? v.map(String) : []));
  return { component, flags: flagsOnly(words) };
}

function flagsOnly(words: readonly string[]): string[] {
  return words.filter((w) => w.startsWith('--')).sort();
}

export type CaughtUp = { readonly type: 'caught-up' } | { readonly type: 'waiting'; readonly detail: string };

/** Whether `node` runs `component` with exactly `flags`, running and ready. */
export function staticPodCaughtUp(
  pods: readonly ComponentPodFacts[],
  node: string,
  component: ManagerComponent,
  flags: readonly string[],
): CaughtUp {
  const pod = pods.find((p) => p.nodeName === node);
  if (!pod) return { type: 'waiting', detail: `no ${component} pod on ${node} yet` };
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

/** Waits until the node runs the manifest's manager with its flags; throws with the last state on timeout. */
export async function waitForStaticPod(
  deps: StaticPodWaitDeps,
  node: string,
  path: string,
  manifest: { readonly component: ManagerComponent; readonly flags: readonly string[] },
): Promise<void> {
  const deadline = deps.clock.now() + deps.timeoutMs;
  for (;;) {
    const state = staticPodCaughtUp(
      await deps.pods(manifest.component),
      node,
      manifest.component,
      manifest.flags,
    );
    if (state.type === 'caught-up') return;
    if (deps.clock.now() >= deadline) {
      throw new UprootError(
        'UP-KUBEADM-STATIC-POD',
        `${path} was written on ${node}, but after ${Math.round(deps.timeoutMs / 1000)} s: ${state.detail}`,
        {
          source: 'environment',
          exitCode: ExitCode.failed,
          hint: `look at the kubelet on ${node} (journalctl -u kubelet; crictl ps -a | grep ${manifest.component}); once it runs, \`uproot migrate --resume\` writes the file again (harmless) and goes on`,
        },
      );
    }
    await deps.clock.sleep(deps.pollMs ?? 2000, deps.signal);
  }
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
