/**
 * ccm-install: where an aws-cloud-controller-manager is installed or planned (DaemonSet, RKE2 HelmChart,
 * the cluster definition's additionalManifest, a static pod), its flags, image and RBAC:
 * - --cloud-provider=aws; --enable-leader-migration while any KCM still runs the in-tree provider;
 *   --configure-cloud-routes=false unless the cluster uses cloud routes; --use-service-account-credentials.
 * - The CCM's minor must not be newer than the API server's (version skew), nor than the target.
 * - The 1.28 controller rename (leader-migration.md §6): a CCM 1.28+ with the default migration config next
 *   to a 1.27-or-older KCM migrates only cloud-node-lifecycle; the service controller then runs in both.
 * - `get` on serviceaccounts in its ClusterRole (Rancher adds it; the chart's default has only create).
 */
import { stringify } from 'yaml';
import { fail, pass, warn, type CheckResult, type Fix } from './check-result.js';
import type { CheckContext } from './check-context.js';
import { flagEnabled, parseFlags } from '../model/component-flags.js';
import { CCM_NAMESPACE, CCM_SERVICE_ACCOUNT, findCcmDeployments, type CcmDeployment } from '../ccm/index.js';
import { ruleAllows } from './facts/rbac-rules.js';
import { clusterUsesCloudRoutes } from '../ccm/index.js';
import { defaultConfigIsSafe } from '../leader-migration/index.js';
import { ccmImageTagFor, ccmTagMinor } from '../ccm/index.js';
import { imageTag } from '../model/index.js';
import { minorString, type KubernetesVersion } from '../model/kubernetes-version.js';

const ID = 'ccm-install';

export function checkCcmInstall(ctx: CheckContext): CheckResult {
  const deployments = findCcmDeployments(ctx.snapshot.kube, ctx.profile.definition);
  const pinFor = pinnedVersion(ctx);
  if (deployments.length === 0) {
    return pass(
      ID,
      `no aws-cloud-controller-manager installed or planned yet${pinFor ? `; uproot pins ${safeTag(pinFor)} for Kubernetes ${minorString(pinFor)}` : ''}`,
    );
  }
  const fails: string[] = [];
  const warns: string[] = [];
  const fixes: Fix[] = [];
  const details: string[] = [];
  const inTree = kcmInTree(ctx);
  const kcmLeaderMigration =
    ctx.profile.kcm.state === 'ok' &&
    ctx.profile.kcm.value.every((v) => flagEnabled(v.flags, 'enable-leader-migration', false));
  for (const d of deployments) {
    const flags = parseFlags(d.args);
    const problems = { fails: [] as string[], warns: [] as string[] };
    const argFixes: string[] = [];
    details.push(`${d.source}: ${d.image ?? 'image unknown'} ${d.args.join(' ')}`);
    if (flags.get('cloud-provider') !== 'aws') {
      problems.fails.push(`--cloud-provider=${flags.get('cloud-provider') ?? '(unset)'} (must be aws)`);
      argFixes.push('--cloud-provider=aws');
    }
    const ccmMigration = flagEnabled(flags, 'enable-leader-migration', false);
    if (inTree && !ccmMigration) {
      problems.fails.push(
        'no --enable-leader-migration while kube-controller-managers still run the in-tree provider: the cloud controllers would run in both managers',
      );
      argFixes.push('--enable-leader-migration=true');
    }
    if (flagEnabled(flags, 'configure-cloud-routes', true) && !clusterUsesCloudRoutes(ctx)) {
      problems.warns.push(
        '--configure-cloud-routes is not false: the route controller would manage VPC route tables the cluster does not use',
      );
      argFixes.push('--configure-cloud-routes=false');
    }
    if (!flagEnabled(flags, 'use-service-account-credentials', false)) {
      problems.warns.push(
        "no --use-service-account-credentials=true: every controller shares the CCM's own identity",
      );
      argFixes.push('--use-service-account-credentials=true');
    }
    const version = judgeVersion(ctx, d, flags, inTree && (ccmMigration || kcmLeaderMigration));
    problems.fails.push(...version.fails);
    problems.warns.push(...version.warns);
    const rbac = judgeRbac(ctx, d);
    problems.fails.push(...rbac.fails);
    problems.warns.push(...rbac.warns);
    fails.push(...problems.fails.map((p) => `${d.source}: ${p}`));
    warns.push(...problems.warns.map((p) => `${d.source}: ${p}`));
    if (argFixes.length > 0 || version.tag) fixes.push(valuesFix(d, argFixes, version.tag));
    fixes.push(...rbac.fixes);
  }
  if (fails.length > 0) return fail(ID, fails[0]!, fixes, { details: [...fails, ...warns, ...details] });
  if (warns.length > 0) return warn(ID, warns[0]!, fixes, { details: [...warns, ...details] });
  return pass(ID, `${deployments.map((d) => d.source).join(', ')}: flags, image and RBAC fit the migration`, {
    details,
  });
}

function kcmInTree(ctx: CheckContext): boolean {
  return (
    ctx.profile.kcm.state === 'ok' &&
    ctx.profile.kcm.value.some((v) => v.flags.get('cloud-provider') === 'aws')
  );
}

/** The version the CCM should match: the target when given (the CCM must not outrun it), else the API server. */
function pinnedVersion(ctx: CheckContext): KubernetesVersion | undefined {
  return ctx.profile.targetVersion ?? ctx.profile.version;
}

function safeTag(v: KubernetesVersion): string {
  try {
    return ccmImageTagFor(v);
  } catch {
    return `v${v.major}.${v.minor}.x`;
  }
}

function judgeVersion(
  ctx: CheckContext,
  d: CcmDeployment,
  flags: ReadonlyMap<string, string>,
  migrating: boolean,
): { fails: string[]; warns: string[]; tag?: string } {
  const out = { fails: [] as string[], warns: [] as string[] } as {
    fails: string[];
    warns: string[];
    tag?: string;
  };
  const server = ctx.profile.version;
  const tag = d.image ? imageTag(d.image) : undefined;
  const minor = tag ? ccmTagMinor(tag) : undefined;
  const want = pinnedVersion(ctx);
  if (minor === undefined) {
    out.warns.push(`image ${d.image ?? '(unknown)'} has no release tag; pin the tag for the cluster's minor`);
    if (want) out.tag = safeTag(want);
    return out;
  }
  if (server && minor > server.minor) {
    out.fails.push(
      `image ${tag} is newer than the API server (${server.raw}); the CCM's minor must not be newer than the cluster's`,
    );
    if (want) out.tag = safeTag(server);
  } else if (ctx.profile.targetVersion && minor > ctx.profile.targetVersion.minor) {
    out.fails.push(`image ${tag} is newer than the target ${ctx.profile.targetVersion.raw}`);
    out.tag = safeTag(ctx.profile.targetVersion);
  }
  if (server && migrating && !flags.get('leader-migration-config')) {
    const ccmVersion = { major: 1, minor, patch: 0, raw: tag! };
    if (!defaultConfigIsSafe(server, ccmVersion)) {
      out.fails.push(
        `image ${tag} with the default leader-migration configuration next to kube-controller-manager ${server.raw}: across the 1.28 controller rename only cloud-node-lifecycle migrates, and the service controller runs in both managers`,
      );
      out.tag = safeTag(server);
    }
  } else if (server && migrating && flags.get('leader-migration-config')) {
    const ccmVersion = { major: 1, minor, patch: 0, raw: tag! };
    if (!defaultConfigIsSafe(server, ccmVersion)) {
      out.warns.push(
        `image ${tag} and kube-controller-manager ${server.raw} straddle the 1.28 controller rename: make sure ${flags.get('leader-migration-config')} lists the names of both eras (service and service-lb-controller, route and node-route-controller, cloud-node-lifecycle and cloud-node-lifecycle-controller)`,
      );
    }
  }
  return out;
}

function judgeRbac(ctx: CheckContext, d: CcmDeployment): { fails: string[]; warns: string[]; fixes: Fix[] } {
  const out = { fails: [] as string[], warns: [] as string[], fixes: [] as Fix[] };
  const attrs = { verb: 'get', group: '', resource: 'serviceaccounts', namespace: CCM_NAMESPACE };
  if (d.clusterRoleRules) {
    if (!d.clusterRoleRules.some((r) => ruleAllows(r, attrs))) {
      out.fails.push(
        'clusterRoleRules do not allow get on serviceaccounts; the CCM cannot read its service accounts at startup (seed 004 adds it)',
      );
      out.fixes.push({
        type: 'config',
        description: "add get to the serviceaccounts rule of the chart's clusterRoleRules",
        target: `${d.source} values`,
        snippet: stringify({
          clusterRoleRules: [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create', 'get'] }],
        }),
        commands: [],
      });
    }
    return out;
  }
  if (d.kind !== 'daemonset') return out;
  const access = ctx.snapshot.kube.ccmAccess;
  if (access.state === 'unavailable') {
    out.warns.push(`RBAC not verified: ${access.reason}`);
    return out;
  }
  const denied = access.value.filter((r) => !r.allowed);
  if (denied.length > 0) {
    out.fails.push(
      `service account ${CCM_NAMESPACE}/${CCM_SERVICE_ACCOUNT} may not ${denied.map((r) => `${r.attributes.verb} ${r.attributes.resource}`).join(', ')}`,
    );
    out.fixes.push({
      type: 'commands',
      description:
        "allow the CCM to get service accounts (add get to the serviceaccounts rule of its ClusterRole, and to the chart's clusterRoleRules so an upgrade keeps it)",
      commands: [
        `kubectl patch clusterrole system:cloud-controller-manager --type=json -p '${JSON.stringify([{ op: 'add', path: '/rules/-', value: { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get'] } }])}'`,
      ],
    });
  }
  return out;
}

function valuesFix(d: CcmDeployment, argFixes: readonly string[], tag?: string): Fix {
  const names = new Set(argFixes.map((a) => a.replace(/^--/, '').split('=')[0]));
  const args = [...d.args.filter((a) => !names.has(a.replace(/^--?/, '').split('=')[0]!)), ...argFixes];
  const values: Record<string, unknown> = { args };
  if (tag) values.image = { tag };
  return {
    type: 'config',
    description: `set the CCM's ${[argFixes.length > 0 ? 'arguments' : '', tag ? `image tag (${tag})` : ''].filter(Boolean).join(' and ')}`,
    target:
      d.kind === 'daemonset' || d.kind === 'static-pod'
        ? `${d.source} (and the chart values it came from)`
        : `${d.source} values`,
    snippet: stringify(values),
    commands: [],
  };
}
