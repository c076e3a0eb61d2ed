/**
 * kubernetes-version: the in-tree AWS provider exists up to 1.26 (removed in 1.27, kubernetes#115838);
 * leader migration is alpha in 1.21 (feature gate, explicit config), beta with a default config in 1.22,
 * GA in 1.24. The migration has to happen at or before 1.27; a target past the next minor is reached by
 * hops of one minor each after it (every distribution upgrades one minor at a time), as `uproot plan` plans
 * them (src/core/distros/shared/version-policy.ts): the check judges the target with the planner's rules.
 * The cluster's version is the control plane's (its components' images, else /version), not a kubelet's.
 */
import { UprootError } from '../../errors/index.js';
import { minorString, type KubernetesVersion } from '../model/kubernetes-version.js';
import {
  finalVersion,
  isReleaseName,
  resolveTarget,
  type VersionPlan,
} from '../distros/shared/version-policy.js';
import { fail, pass, skip, warn, type CheckResult, type Fix } from './check-result.js';
import type { CheckContext } from './check-context.js';

const ID = 'kubernetes-version';

export function checkKubernetesVersion(ctx: CheckContext): CheckResult {
  const current = ctx.profile.version;
  if (!current) {
    const server = ctx.snapshot.kube.server;
    return skip(
      ID,
      server.state === 'unavailable' ? server.reason : 'no version from the API server or the kubelets',
    );
  }
  const target = ctx.profile.targetVersion;
  const details = [
    ...ctx.profile.controlPlaneVersions.map((c) => `${c.component} ${c.version.raw}: ${c.source}`),
    ...(target ? [`target ${target.raw}`] : []),
    `kubelets ${kubeletVersions(ctx).join(', ') || '(none)'}`,
  ];

  if (current.major !== 1 || current.minor < 21) {
    return fail(
      ID,
      `Kubernetes ${current.raw} predates leader migration (1.21+); the controllers cannot move without downtime`,
      [
        {
          type: 'manual',
          description: 'upgrade the cluster to 1.22 or later (default leader-migration configuration) first',
          steps: [
            'upgrade one minor at a time with your distribution to 1.22+',
            'run uproot preflight again',
          ],
        },
      ],
      { details },
    );
  }
  let journey: VersionPlan | undefined;
  if (target) {
    const judged = judgeTarget(ctx, current, target);
    if (judged.type === 'fail') return fail(ID, judged.message, [judged.fix], { details });
    journey = judged.plan;
  }
  if (current.minor >= 27) {
    return pass(
      ID,
      `Kubernetes ${current.raw} has no in-tree AWS provider: the cluster already runs an external cloud provider or none`,
      { details },
    );
  }
  if (current.minor === 21) {
    return warn(
      ID,
      `Kubernetes ${current.raw}: leader migration is alpha; it needs the ControllerManagerLeaderMigration feature gate and an explicit --leader-migration-config`,
      [
        {
          type: 'manual',
          description: 'prefer upgrading to 1.22+ before migrating (beta, default configuration)',
          steps: [
            'or set --feature-gates=ControllerManagerLeaderMigration=true and --leader-migration-config on both managers',
          ],
        },
      ],
      { details },
    );
  }
  const support = current.minor >= 24 ? 'GA' : 'beta, default configuration';
  return pass(
    ID,
    `Kubernetes ${current.raw}: in-tree provider available, leader migration ${support}; ${pathText(current, target, journey)}`,
    { details },
  );
}

function pathText(
  current: KubernetesVersion,
  target: KubernetesVersion | undefined,
  journey: VersionPlan | undefined,
): string {
  if (!target) {
    return current.minor === 26
      ? 'migrate as part of the 1.26 → 1.27 upgrade (1.27 removes the in-tree provider)'
      : 'migrate, then keep upgrading one minor at a time; 1.27 requires the external provider';
  }
  if (target.minor === current.minor)
    return `migrate at ${minorString(current)} without upgrading${current.minor === 26 ? ', then upgrade to 1.27' : ''}`;
  const hops = journey?.hops ?? [];
  if (hops.length === 0) return `migrate as part of the upgrade to ${minorString(target)}`;
  return `migrate as part of the upgrade to ${minorString(journey!.target)}, then ${hops.length} upgrade(s) of one minor each to ${finalVersion(journey!).raw}`;
}

type TargetVerdict =
  | { readonly type: 'ok'; readonly plan?: VersionPlan }
  | { readonly type: 'fail'; readonly message: string; readonly fix: Fix };

/**
 * Judges the target with the planner's own rules where the distribution is known: a downgrade, a release it
 * cannot name, or (RKE) a minor past its last fail. `1.27` or a full release name both work; a full name not
 * in the distribution's form is judged by its minor (preflight only needs the path).
 */
function judgeTarget(
  ctx: CheckContext,
  current: KubernetesVersion,
  target: KubernetesVersion,
): TargetVerdict {
  const distro = ctx.profile.distro;
  if (distro !== 'rke2' && distro !== 'rke' && distro !== 'kubeadm') {
    if (target.major !== current.major || target.minor < current.minor) return downgrade(current, target);
    return { type: 'ok' };
  }
  try {
    return { type: 'ok', plan: resolveFor(distro, current, target, ctx.options) };
  } catch (error) {
    if (!UprootError.is(error)) throw error;
    if (error.code === 'UP-PLAN-TARGET-DOWNGRADE') return downgrade(current, target);
    return {
      type: 'fail',
      message: error.message,
      fix: { type: 'manual', description: error.hint ?? 'choose another --target-version', steps: [] },
    };
  }
}

function resolveFor(
  distro: 'rke2' | 'rke' | 'kubeadm',
  current: KubernetesVersion,
  target: KubernetesVersion,
  options?: CheckContext['options'],
): VersionPlan {
  const raw =
    target.minor !== current.minor && !isReleaseName(distro, target.raw) ? minorString(target) : target.raw;
  return resolveTarget(distro, current, raw, options);
}

/**
 * The error `uproot plan` and `uproot migrate` give for this cluster's --target-version, if any: preflight
 * refuses the same input the same way (exit 2), instead of reporting a failed check (exit 1).
 */
export function targetVersionError(ctx: CheckContext): UprootError | undefined {
  const { version: current, targetVersion: target, distro } = ctx.profile;
  if (!current || !target || (distro !== 'rke2' && distro !== 'rke' && distro !== 'kubeadm'))
    return undefined;
  try {
    resolveFor(distro, current, target, ctx.options);
    return undefined;
  } catch (error) {
    if (UprootError.is(error)) return error;
    throw error;
  }
}

function downgrade(current: KubernetesVersion, target: KubernetesVersion): TargetVerdict {
  return {
    type: 'fail',
    message: `target ${target.raw} is older than the cluster (${current.raw}); Kubernetes does not downgrade`,
    fix: { type: 'manual', description: `pass --target-version ${minorString(current)} or newer`, steps: [] },
  };
}

function kubeletVersions(ctx: CheckContext): string[] {
  return [...new Set(ctx.profile.nodes.map((n) => n.kubeletVersion))].sort();
}
