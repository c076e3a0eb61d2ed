/**
 * iam-control-plane / iam-nodes: the instance profiles' roles allow what the cloud provider calls. Control-
 * plane instances need seed 004's control-plane policy (the in-tree provider in the KCM, then the CCM, use
 * the instance role); etcd and worker instances need the node policy (ECR actions only when pods pull from
 * ECR). Decisions come from the IAM simulation in src/core/iam (wildcards, NotAction, explicit denies,
 * permission boundaries); an explicit deny cannot be fixed by adding an Allow.
 */
import {
  fail,
  pass,
  skip,
  warn,
  type CheckId,
  type CheckResult,
  type Fix,
  type ResourceRef,
} from './check-result.js';
import { awsSkipReason, plural, type CheckContext } from './check-context.js';
import { isControlPlaneNode } from './facts/cluster-profile.js';
import { isEcrImage } from './ecr-credentials.js';
import {
  CONTROL_PLANE_ACTIONS,
  NODE_EC2_ACTIONS,
  NODE_ECR_ACTIONS,
  ccmVersionedActions,
  type VersionedCcmAction,
} from '../iam/index.js';
import type { RoleEvaluation } from '../model/iam-evaluation.js';
import { compareVersions } from '../model/kubernetes-version.js';
import { featureSince } from '../ccm/index.js';
import { ccmsInPlay, type CcmInPlay } from '../ccm/index.js';

export const IAM_POLICY_NAMES = {
  'iam-control-plane': 'uproot-cloud-provider-control-plane',
  'iam-nodes': 'uproot-cloud-provider-node',
} as const;

export function checkIamControlPlane(ctx: CheckContext): CheckResult {
  return checkIam(ctx, 'iam-control-plane', true);
}

export function checkIamNodes(ctx: CheckContext): CheckResult {
  return checkIam(ctx, 'iam-nodes', false);
}

function checkIam(
  ctx: CheckContext,
  id: 'iam-control-plane' | 'iam-nodes',
  controlPlane: boolean,
): CheckResult {
  const reason = awsSkipReason(ctx);
  if (reason || !ctx.nodeInstances || ctx.snapshot.aws.state !== 'ok')
    return skip(id, reason ?? 'no instances');
  const iam = ctx.snapshot.aws.value.iam;
  if (iam.state === 'unavailable') return skip(id, iam.reason);
  const evaluation = ctx.snapshot.iam;
  if (!evaluation) return skip(id, 'the IAM policies were not evaluated');
  if (evaluation.state === 'unavailable') return skip(id, evaluation.reason);

  const group = ctx.nodeInstances.filter((ni) => isControlPlaneNode(ni.node) === controlPlane);
  const what = controlPlane ? 'control-plane' : 'worker/etcd';
  if (group.length === 0) return skip(id, `no ${what} nodes`);
  const instances = [
    ...new Map(
      group.flatMap((ni) => (ni.instance ? [[ni.instance.instanceId, ni.instance] as const] : [])),
    ).values(),
  ];
  if (instances.length === 0) return skip(id, `no ${what} node resolves to an instance (see node-names)`);

  const ecrNeeded = !controlPlane && usesEcr(ctx);
  const required = controlPlane
    ? CONTROL_PLANE_ACTIONS
    : ecrNeeded
      ? [...NODE_EC2_ACTIONS, ...NODE_ECR_ACTIONS]
      : NODE_EC2_ACTIONS;
  // The control-plane role runs the CCM: the actions its release calls, not a fixed list.
  const ccm = controlPlane ? newestCcm(ctx) : undefined;
  const versioned = ccmVersionedActions(ccm?.release);
  const recommended = versioned.map((a) => a.action);

  const noProfile = instances.filter((i) => !i.iamInstanceProfileArn);
  const profiles = new Map(iam.value.profiles.map((p) => [p.arn, p]));
  const roleNames = new Set<string>();
  for (const i of instances) {
    const profile = i.iamInstanceProfileArn ? profiles.get(i.iamInstanceProfileArn) : undefined;
    if (!i.iamInstanceProfileArn) continue;
    if (!profile) return skip(id, `instance profile ${i.iamInstanceProfileArn} was not read`);
    if (profile.roles.state === 'unavailable') return skip(id, profile.roles.reason);
    for (const r of profile.roles.value) roleNames.add(r);
  }
  const fixes: Fix[] = [];
  const fails: string[] = [];
  const warns: string[] = [];
  const details: string[] = [];
  const resources: ResourceRef[] = [];
  if (noProfile.length > 0) {
    fails.push(
      `${plural(noProfile.length, 'instance')} without an instance profile: ${noProfile
        .slice(0, 5)
        .map((i) => i.instanceId)
        .join(', ')}`,
    );
    resources.push(...noProfile.map((i) => ({ kind: 'Instance', name: i.instanceId })));
    fixes.push({
      type: 'commands',
      description: `attach an instance profile whose role has the ${what} policy`,
      commands: noProfile.map(
        (i) =>
          `aws ec2 associate-iam-instance-profile --instance-id ${i.instanceId} --iam-instance-profile Name=<profile>`,
      ),
    });
  }
  for (const roleName of [...roleNames].sort()) {
    const roleEval = evaluation.value.roles[roleName];
    if (!roleEval) return skip(id, `role ${roleName} was not evaluated`);
    if (roleEval.state === 'unavailable') return skip(id, roleEval.reason);
    const judged = judgeRole(roleEval.value, required, recommended);
    details.push(
      `role ${roleName}: ${required.length - judged.missing.length - judged.denied.length}/${required.length} required actions allowed`,
    );
    if (judged.missing.length + judged.denied.length + judged.missingRecommended.length === 0) continue;
    resources.push({ kind: 'Role', name: roleName });
    if (judged.denied.length > 0) {
      fails.push(`role ${roleName}: explicitly denied ${judged.denied.map((d) => d.action).join(', ')}`);
      fixes.push({
        type: 'manual',
        description: `remove or narrow the statements that deny role ${roleName} actions the cloud provider needs (an Allow cannot override a Deny)`,
        steps: [...new Set(judged.denied.flatMap((d) => d.by.map((b) => `${b}: denies ${d.action}`)))],
      });
    }
    if (judged.missing.length > 0) fails.push(`role ${roleName}: missing ${judged.missing.join(', ')}`);
    for (const action of judged.missingRecommended) {
      const v = versioned.find((a) => a.action === action)!;
      warns.push(
        `role ${roleName}: missing ${action}, which CCM ${ccm!.release.raw} (${ccm!.source}) calls (from ${featureSince(v.feature)}): ${v.without}`,
      );
    }
    const toAdd = [...judged.missing, ...judged.missingRecommended];
    if (toAdd.length > 0) fixes.push(policyFix(id, roleName, toAdd));
  }
  if (!ecrNeeded && !controlPlane) details.push('no pod runs an image from ECR: ECR actions not required');
  if (ccm) details.push(versionedDetail(ccm, versioned));
  const scope = `${plural(instances.length, 'instance')}, ${plural(roleNames.size, 'role')}`;
  if (fails.length > 0)
    return fail(id, `${what} IAM gaps (${scope}): ${fails[0]}`, fixes, {
      resources,
      details: [...fails, ...warns, ...details],
    });
  if (warns.length > 0)
    return warn(id, `${what} IAM (${scope}): ${warns[0]}`, fixes, {
      resources,
      details: [...warns, ...details],
    });
  return pass(id, `${what} roles allow every required action (${scope})`, { details });
}

function judgeRole(
  role: RoleEvaluation,
  required: readonly string[],
  recommended: readonly string[],
): { missing: string[]; denied: { action: string; by: readonly string[] }[]; missingRecommended: string[] } {
  const missing: string[] = [];
  const denied: { action: string; by: readonly string[] }[] = [];
  const missingRecommended: string[] = [];
  for (const action of required) {
    const e = role.actions[action];
    if (!e || e.decision === 'implicit-deny') missing.push(action);
    else if (e.decision === 'explicit-deny') denied.push({ action, by: e.deniedBy ?? [] });
  }
  for (const action of recommended) {
    const e = role.actions[action];
    if (!e || e.decision !== 'allowed') missingRecommended.push(action);
  }
  return { missing, denied, missingRecommended };
}

export function policyFix(
  id: CheckId & keyof typeof IAM_POLICY_NAMES,
  roleName: string,
  actions: readonly string[],
): Fix {
  const policyName = IAM_POLICY_NAMES[id];
  const document = {
    Version: '2012-10-17' as const,
    Statement: [
      { Sid: 'UprootCloudProvider', Effect: 'Allow' as const, Action: [...actions].sort(), Resource: '*' },
    ],
  };
  return {
    type: 'iam-policy',
    description: `add an inline policy to role ${roleName} allowing ${plural(actions.length, 'missing action')}`,
    roleName,
    policyName,
    document,
    commands: [
      `aws iam put-role-policy --role-name ${roleName} --policy-name ${policyName} --policy-document '${JSON.stringify(document)}'`,
    ],
  };
}

function usesEcr(ctx: CheckContext): boolean {
  const images = ctx.snapshot.kube.images;
  return images.state === 'ok' && images.value.some((i) => isEcrImage(i.image));
}

/** The newest CCM release the cluster runs or will run: the role must allow what it calls. */
function newestCcm(ctx: CheckContext): CcmInPlay | undefined {
  return ccmsInPlay(ctx).sort((a, b) => compareVersions(b.release, a.release))[0];
}

function versionedDetail(ccm: CcmInPlay, versioned: readonly VersionedCcmAction[]): string {
  return `CCM ${ccm.release.raw} (${ccm.source}) calls ${
    versioned.length > 0 ? versioned.map((a) => a.action).join(', ') : 'no action'
  } beyond seed 004's policy`;
}
