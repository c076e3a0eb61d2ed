/**
 * Instance profile → role → policies, read once per profile, role and managed policy (many nodes share a
 * profile). Policy documents arrive URL-encoded and are decoded here. A call the identity may not make
 * (AccessDenied on iam:GetInstanceProfile, say) marks that profile or role unavailable with the reason.
 */
import {
  GetInstanceProfileCommand,
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetRolePolicyCommand,
  ListAttachedRolePoliciesCommand,
  ListRolePoliciesCommand,
  type IAMClient,
  type ListAttachedRolePoliciesCommandOutput,
} from '@aws-sdk/client-iam';
import type {
  IamFacts,
  IamPolicyFacts,
  IamRoleFacts,
  InstanceProfileFacts,
} from '../../core/model/snapshot.js';
import type { Readable } from '../../core/model/readable.js';
import { decodePolicyDocument } from '../../core/iam/index.js';
import { awsFailureReason } from './aws-errors.js';

/** `arn:aws:iam::123456789012:instance-profile/path/name` → `name`. */
export function profileNameOf(arn: string): string {
  const resource = arn.split(':').slice(5).join(':');
  return resource.slice(resource.lastIndexOf('/') + 1);
}

export async function readIam(iam: IAMClient, profileArns: readonly string[]): Promise<IamFacts> {
  const profiles: InstanceProfileFacts[] = [];
  const roleArns = new Map<string, { arn: string; boundaryArn?: string }>();
  for (const arn of [...new Set(profileArns)].sort()) {
    const name = profileNameOf(arn);
    try {
      const out = await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }));
      const roles = out.InstanceProfile?.Roles ?? [];
      for (const r of roles) {
        if (!r.RoleName) continue;
        const boundaryArn = r.PermissionsBoundary?.PermissionsBoundaryArn;
        roleArns.set(r.RoleName, { arn: r.Arn ?? '', ...(boundaryArn ? { boundaryArn } : {}) });
      }
      profiles.push({
        arn,
        name,
        roles: { state: 'ok', value: roles.map((r) => r.RoleName ?? '').filter(Boolean) },
      });
    } catch (error) {
      profiles.push({
        arn,
        name,
        roles: { state: 'unavailable', reason: awsFailureReason(error, 'iam:GetInstanceProfile') },
      });
    }
  }
  const managed = new Map<string, Promise<IamPolicyFacts>>();
  const roles: Record<string, Readable<IamRoleFacts>> = {};
  for (const [roleName, info] of roleArns) {
    roles[roleName] = await readRole(iam, roleName, info, managed);
  }
  return { profiles, roles };
}

async function readRole(
  iam: IAMClient,
  roleName: string,
  info: { arn: string; boundaryArn?: string },
  managed: Map<string, Promise<IamPolicyFacts>>,
): Promise<Readable<IamRoleFacts>> {
  let call = 'iam:ListRolePolicies';
  try {
    const inlineNames: string[] = [];
    let marker: string | undefined;
    do {
      const page = await iam.send(
        new ListRolePoliciesCommand({ RoleName: roleName, ...(marker ? { Marker: marker } : {}) }),
      );
      inlineNames.push(...(page.PolicyNames ?? []));
      marker = page.IsTruncated ? page.Marker : undefined;
    } while (marker);
    const policies: IamPolicyFacts[] = [];
    call = 'iam:GetRolePolicy';
    for (const name of inlineNames) {
      const out = await iam.send(new GetRolePolicyCommand({ RoleName: roleName, PolicyName: name }));
      policies.push({ name, kind: 'inline', document: decodePolicyDocument(out.PolicyDocument ?? '{}') });
    }
    call = 'iam:ListAttachedRolePolicies';
    const attached: string[] = [];
    marker = undefined;
    do {
      const page: ListAttachedRolePoliciesCommandOutput = await iam.send(
        new ListAttachedRolePoliciesCommand({ RoleName: roleName, ...(marker ? { Marker: marker } : {}) }),
      );
      attached.push(...(page.AttachedPolicies ?? []).map((p) => p.PolicyArn ?? '').filter(Boolean));
      marker = page.IsTruncated ? page.Marker : undefined;
    } while (marker);
    call = 'iam:GetPolicy';
    for (const arn of attached) policies.push(await managedPolicy(iam, arn, managed));
    const boundary = info.boundaryArn ? await managedPolicy(iam, info.boundaryArn, managed) : undefined;
    return {
      state: 'ok',
      value: {
        name: roleName,
        arn: info.arn,
        policies,
        ...(boundary ? { permissionsBoundary: boundary } : {}),
      },
    };
  } catch (error) {
    return { state: 'unavailable', reason: awsFailureReason(error, call) };
  }
}

/** A managed policy's default version, fetched once per ARN. */
function managedPolicy(
  iam: IAMClient,
  arn: string,
  cache: Map<string, Promise<IamPolicyFacts>>,
): Promise<IamPolicyFacts> {
  let p = cache.get(arn);
  if (!p) {
    p = (async () => {
      const policy = await iam.send(new GetPolicyCommand({ PolicyArn: arn }));
      const version = await iam.send(
        new GetPolicyVersionCommand({ PolicyArn: arn, VersionId: policy.Policy?.DefaultVersionId ?? 'v1' }),
      );
      return {
        name: policy.Policy?.PolicyName ?? arn,
        kind: 'managed' as const,
        arn,
        document: decodePolicyDocument(version.PolicyVersion?.Document ?? '{}'),
      };
    })();
    cache.set(arn, p);
  }
  return p;
}
