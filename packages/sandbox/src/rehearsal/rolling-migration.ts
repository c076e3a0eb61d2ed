/**
 * The rehearsed procedure itself, the same whatever the managers run on (the memory lease store or the
 * sandbox's API server): KCM N on every control-plane node; with leader migration, the CCMs first; then each
 * node's KCM replaced by N+1 with the external provider; without leader migration, the CCMs only at the end.
 */
import type { Clock } from 'uproot';
import type { KubernetesVersion, ManagerComponent } from 'uproot/core';

export interface RollingMigration<Spec> {
  readonly clock: Clock;
  readonly nodes: readonly string[];
  readonly leaderMigration: boolean;
  readonly versions: {
    readonly from: KubernetesVersion;
    readonly to: KubernetesVersion;
    readonly ccm: KubernetesVersion;
  };
  readonly specs: { readonly kcmOld: Spec; readonly kcmNew: Spec; readonly ccm: Spec };
  readonly timings: {
    readonly warmupMs: number;
    readonly settleMs: number;
    readonly downtimeMs: number;
    readonly staggerMs: number;
  };
  /** How the step log names the leader-migration setting and the in-tree provider. */
  readonly words: { readonly inTree: string; readonly kcmMigrating: string; readonly ccmMigrating: string };
  launch(node: number, spec: Spec): void;
  kill(component: ManagerComponent, node: number): Promise<void>;
  step(text: string): void;
}

export async function rollingMigration<Spec>(m: RollingMigration<Spec>): Promise<void> {
  const { clock, nodes, versions, timings, words } = m;
  const lm = m.leaderMigration;
  m.step(
    `start ${nodes.length} KCMs ${versions.from.raw}, ${words.inTree}${lm ? `, ${words.kcmMigrating}` : ''}`,
  );
  nodes.forEach((_, node) => m.launch(node, m.specs.kcmOld));
  await clock.sleep(timings.warmupMs);
  const deployCcms = async (): Promise<void> => {
    for (const [node, name] of nodes.entries()) {
      m.step(`start CCM ${versions.ccm.raw} on ${name}${lm ? ` with ${words.ccmMigrating}` : ''}`);
      m.launch(node, m.specs.ccm);
      await clock.sleep(timings.staggerMs);
    }
    await clock.sleep(timings.settleMs);
  };
  if (lm) await deployCcms();
  for (const [node, name] of nodes.entries()) {
    m.step(`restart KCM on ${name}: ${versions.to.raw}, --cloud-provider=external, no leader migration`);
    await m.kill('kube-controller-manager', node);
    await clock.sleep(timings.downtimeMs);
    m.launch(node, m.specs.kcmNew);
    await clock.sleep(timings.settleMs);
  }
  if (!lm) await deployCcms();
  await clock.sleep(timings.settleMs);
  m.step('end');
}
