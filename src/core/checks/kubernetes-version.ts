/**
 * kubernetes-version: the in-tree AWS provider exists up to 1.26 (removed in 1.27, kubernetes#115838);
 * leader migration is alpha in 1.21 (feature gate, explicit config), beta with a default config in 1.22,
 * GA in 1.24. The control plane upgrades one minor at a time, and the migration has to happen at or
 * before 1.27: a target past 1.27 from below it cannot be reached with the in-tree provider still running.
 */
import { minorString, type KubernetesVersion } from '../kubernetes-version/index.js';
import { fail, pass, skip, warn, type CheckResult } from './check-result.js';
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
  const details = [`API server ${current.raw}`, ...(target ? [`target ${target.raw}`] : [])];
  details.push(`kubelets ${kubeletVersions(ctx).join(', ') || '(none)'}`);

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
  if (target) {
    const targetProblem = targetPath(current, target);
    if (targetProblem) return fail(ID, targetProblem.message, [targetProblem.fix], { details });
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
  const path = target
    ? target.minor === current.minor
      ? `migrate at ${minorString(current)} without upgrading${current.minor === 26 ? ', then upgrade to 1.27' : ''}`
      : `migrate as part of the upgrade to ${minorString(target)}`
    : current.minor === 26
      ? 'migrate as part of the 1.26 → 1.27 upgrade (1.27 removes the in-tree provider)'
      : `migrate, then keep upgrading one minor at a time; 1.27 requires the external provider`;
  return pass(
    ID,
    `Kubernetes ${current.raw}: in-tree provider available, leader migration ${support}; ${path}`,
    {
      details,
    },
  );
}

function targetPath(
  current: KubernetesVersion,
  target: KubernetesVersion,
): { message: string; fix: { type: 'manual'; description: string; steps: string[] } } | undefined {
  const steps = (to: number) =>
    Array.from({ length: Math.max(0, to - current.minor) }, (_, i) => `1.${current.minor + i + 1}`);
  if (target.major !== current.major || target.minor < current.minor) {
    return {
      message: `target ${target.raw} is older than the cluster (${current.raw}); Kubernetes does not downgrade`,
      fix: {
        type: 'manual',
        description: `pass --target-version ${minorString(current)} or newer`,
        steps: [],
      },
    };
  }
  if (current.minor < 27 && target.minor > 27) {
    return {
      message: `target ${target.raw} is past 1.27, which removes the in-tree AWS provider: migrate at or before 1.27 (from ${current.raw}), then upgrade`,
      fix: {
        type: 'manual',
        description: `migrate with --target-version ${current.minor === 26 ? '1.27' : minorString(current)}, then upgrade one minor at a time`,
        steps: steps(target.minor).map((v) => `upgrade to ${v}`),
      },
    };
  }
  if (target.minor > current.minor + 1) {
    return {
      message: `target ${target.raw} is ${target.minor - current.minor} minors ahead; control planes upgrade one minor at a time, and during leader migration both versions run side by side`,
      fix: {
        type: 'manual',
        description: `migrate with --target-version 1.${current.minor + 1} (or ${minorString(current)}), then upgrade one minor at a time`,
        steps: steps(target.minor).map((v) => `upgrade to ${v}`),
      },
    };
  }
  return undefined;
}

function kubeletVersions(ctx: CheckContext): string[] {
  return [...new Set(ctx.profile.nodes.map((n) => n.kubeletVersion))].sort();
}
