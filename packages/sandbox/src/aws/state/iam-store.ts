import { AwsApiError } from '../protocol/aws-api-error.js';
import type { InstanceProfileRef, Mutable, TagMap } from './ec2-types.js';
import type { IdGenerator } from './ids.js';
import { tagMap } from './network-store.js';

export interface IamRole {
  readonly name: string;
  readonly id: string;
  readonly arn: string;
  readonly path: string;
  readonly createDate: number;
  /** JSON text, as given (the API returns it URL-encoded). */
  readonly assumeRolePolicyDocument: string;
  readonly description?: string | undefined;
  readonly maxSessionDuration: number;
  readonly tags: TagMap;
  readonly attachedPolicyArns: readonly string[];
  readonly inlinePolicies: ReadonlyMap<string, string>;
}

export interface IamInstanceProfile {
  readonly name: string;
  readonly id: string;
  readonly arn: string;
  readonly path: string;
  readonly createDate: number;
  readonly roleNames: readonly string[];
  readonly tags: TagMap;
}

export interface IamPolicyVersion {
  readonly versionId: string;
  readonly document: string;
  readonly createDate: number;
}

export interface IamManagedPolicy {
  readonly name: string;
  readonly id: string;
  readonly arn: string;
  readonly path: string;
  readonly description?: string | undefined;
  readonly createDate: number;
  readonly updateDate: number;
  readonly defaultVersionId: string;
  readonly versions: readonly IamPolicyVersion[];
}

/** A policy as the authorizer evaluates it. */
export interface EffectivePolicy {
  readonly name: string;
  readonly document: Record<string, unknown>;
}

export const EC2_TRUST_POLICY = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
});

/** Parses and sanity-checks a policy document the way IAM would reject it: `MalformedPolicyDocument`. */
export function parsePolicyDocument(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AwsApiError('MalformedPolicyDocument', 'Syntax errors in policy.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AwsApiError('MalformedPolicyDocument', 'Syntax errors in policy.');
  }
  const statements = (parsed as { Statement?: unknown }).Statement;
  const list = Array.isArray(statements) ? statements : [statements];
  for (const s of list) {
    if (typeof s !== 'object' || s === null) {
      throw new AwsApiError('MalformedPolicyDocument', 'Policy statement must contain actions.');
    }
    const st = s as Record<string, unknown>;
    if (st.Effect !== 'Allow' && st.Effect !== 'Deny') {
      throw new AwsApiError(
        'MalformedPolicyDocument',
        'Policy statement must contain a valid Effect (Allow or Deny).',
      );
    }
    if (st.Action === undefined && st.NotAction === undefined) {
      throw new AwsApiError('MalformedPolicyDocument', 'Policy statement must contain actions.');
    }
  }
  return parsed as Record<string, unknown>;
}

const key = (name: string): string => name.toLowerCase();

/**
 * Roles, instance profiles and managed policies. Names are unique without regard to case, as in IAM. Every
 * change to permissions bumps `revision`, which the authorizer uses to invalidate cached decisions.
 */
export class IamStore {
  private readonly roles = new Map<string, IamRole>();
  private readonly profiles = new Map<string, IamInstanceProfile>();
  private readonly policies = new Map<string, IamManagedPolicy>();
  private revisionCounter = 0;

  constructor(
    private readonly ids: IdGenerator,
    readonly accountId: string,
    private readonly now: () => number,
  ) {}

  get revision(): number {
    return this.revisionCounter;
  }

  roleArn(name: string, path = '/'): string {
    return `arn:aws:iam::${this.accountId}:role${path}${name}`;
  }

  createRole(spec: {
    name: string;
    path?: string | undefined;
    assumeRolePolicyDocument?: string | undefined;
    description?: string | undefined;
    maxSessionDuration?: number | undefined;
    tags?: Readonly<Record<string, string>> | undefined;
  }): IamRole {
    if (this.roles.has(key(spec.name))) {
      throw new AwsApiError('EntityAlreadyExists', `Role with name ${spec.name} already exists.`, 409);
    }
    const trust = spec.assumeRolePolicyDocument ?? EC2_TRUST_POLICY;
    parsePolicyDocument(trust);
    const path = spec.path ?? '/';
    const role: IamRole = {
      name: spec.name,
      id: this.ids.iamId('AROA'),
      arn: this.roleArn(spec.name, path),
      path,
      createDate: this.now(),
      assumeRolePolicyDocument: trust,
      description: spec.description,
      maxSessionDuration: spec.maxSessionDuration ?? 3600,
      tags: tagMap(spec.tags),
      attachedPolicyArns: [],
      inlinePolicies: new Map(),
    };
    this.roles.set(key(spec.name), role);
    this.revisionCounter++;
    return role;
  }

  role(name: string): IamRole | undefined {
    return this.roles.get(key(name));
  }

  requireRole(name: string): IamRole {
    const role = this.roles.get(key(name));
    if (!role) throw new AwsApiError('NoSuchEntity', `The role with name ${name} cannot be found.`, 404);
    return role;
  }

  listRoles(pathPrefix = '/'): IamRole[] {
    return [...this.roles.values()].filter((r) => r.path.startsWith(pathPrefix));
  }

  deleteRole(name: string): void {
    const role = this.requireRole(name);
    if (role.attachedPolicyArns.length > 0 || role.inlinePolicies.size > 0) {
      throw new AwsApiError('DeleteConflict', 'Cannot delete entity, must detach all policies first.', 409);
    }
    if ([...this.profiles.values()].some((p) => p.roleNames.some((r) => key(r) === key(name)))) {
      throw new AwsApiError(
        'DeleteConflict',
        'Cannot delete entity, must remove roles from instance profile first.',
        409,
      );
    }
    this.roles.delete(key(name));
    this.revisionCounter++;
  }

  putRolePolicy(roleName: string, policyName: string, document: string): void {
    const role = this.requireRole(roleName);
    parsePolicyDocument(document);
    (role.inlinePolicies as Map<string, string>).set(policyName, document);
    this.revisionCounter++;
  }

  getRolePolicy(roleName: string, policyName: string): string {
    const doc = this.requireRole(roleName).inlinePolicies.get(policyName);
    if (doc === undefined) {
      throw new AwsApiError('NoSuchEntity', `The role policy with name ${policyName} cannot be found.`, 404);
    }
    return doc;
  }

  deleteRolePolicy(roleName: string, policyName: string): void {
    const role = this.requireRole(roleName);
    if (!(role.inlinePolicies as Map<string, string>).delete(policyName)) {
      throw new AwsApiError('NoSuchEntity', `The role policy with name ${policyName} cannot be found.`, 404);
    }
    this.revisionCounter++;
  }

  policyArn(name: string, path = '/'): string {
    return `arn:aws:iam::${this.accountId}:policy${path}${name}`;
  }

  createPolicy(spec: {
    name: string;
    document: string;
    path?: string | undefined;
    description?: string | undefined;
    arn?: string | undefined;
  }): IamManagedPolicy {
    const path = spec.path ?? '/';
    const arn = spec.arn ?? this.policyArn(spec.name, path);
    if (this.policies.has(arn)) {
      throw new AwsApiError(
        'EntityAlreadyExists',
        `A policy called ${spec.name} already exists. Duplicate names are not allowed.`,
        409,
      );
    }
    parsePolicyDocument(spec.document);
    const now = this.now();
    const policy: IamManagedPolicy = {
      name: spec.name,
      id: this.ids.iamId('ANPA'),
      arn,
      path,
      description: spec.description,
      createDate: now,
      updateDate: now,
      defaultVersionId: 'v1',
      versions: [{ versionId: 'v1', document: spec.document, createDate: now }],
    };
    this.policies.set(arn, policy);
    this.revisionCounter++;
    return policy;
  }

  /** Adds a version (optionally the default), as CreatePolicyVersion does; AWS keeps at most five. */
  createPolicyVersion(arn: string, document: string, setAsDefault: boolean): IamPolicyVersion {
    const policy = this.requirePolicy(arn) as Mutable<IamManagedPolicy>;
    parsePolicyDocument(document);
    if (policy.versions.length >= 5) {
      throw new AwsApiError('LimitExceeded', 'A managed policy can have up to 5 versions.', 409);
    }
    const next = Math.max(...policy.versions.map((v) => Number(v.versionId.slice(1)))) + 1;
    const version: IamPolicyVersion = { versionId: `v${next}`, document, createDate: this.now() };
    policy.versions = [...policy.versions, version];
    policy.updateDate = version.createDate;
    if (setAsDefault) policy.defaultVersionId = version.versionId;
    this.revisionCounter++;
    return version;
  }

  policy(arn: string): IamManagedPolicy | undefined {
    return this.policies.get(arn);
  }

  requirePolicy(arn: string): IamManagedPolicy {
    const policy = this.policies.get(arn);
    if (!policy) throw new AwsApiError('NoSuchEntity', `Policy ${arn} was not found.`, 404);
    return policy;
  }

  listPolicies(): IamManagedPolicy[] {
    return [...this.policies.values()];
  }

  /** The policy's document at a version (the default when omitted). */
  policyVersion(arn: string, versionId?: string): IamPolicyVersion {
    const policy = this.requirePolicy(arn);
    const wanted = versionId ?? policy.defaultVersionId;
    const version = policy.versions.find((v) => v.versionId === wanted);
    if (!version) {
      throw new AwsApiError(
        'NoSuchEntity',
        `Policy ${arn} version ${wanted} does not exist or is not attachable.`,
        404,
      );
    }
    return version;
  }

  attachmentCount(arn: string): number {
    let n = 0;
    for (const r of this.roles.values()) if (r.attachedPolicyArns.includes(arn)) n++;
    return n;
  }

  attachRolePolicy(roleName: string, policyArn: string): void {
    const role = this.requireRole(roleName) as Mutable<IamRole>;
    if (!this.policies.has(policyArn)) {
      throw new AwsApiError('NoSuchEntity', `Policy ${policyArn} does not exist or is not attachable.`, 404);
    }
    if (!role.attachedPolicyArns.includes(policyArn))
      role.attachedPolicyArns = [...role.attachedPolicyArns, policyArn];
    this.revisionCounter++;
  }

  detachRolePolicy(roleName: string, policyArn: string): void {
    const role = this.requireRole(roleName) as Mutable<IamRole>;
    if (!role.attachedPolicyArns.includes(policyArn)) {
      throw new AwsApiError('NoSuchEntity', `Policy ${policyArn} was not found.`, 404);
    }
    role.attachedPolicyArns = role.attachedPolicyArns.filter((a) => a !== policyArn);
    this.revisionCounter++;
  }

  /** The role's attached (default versions) and inline policies, parsed, for the authorizer. */
  effectivePolicies(roleName: string): EffectivePolicy[] {
    const role = this.role(roleName);
    if (!role) return [];
    const out: EffectivePolicy[] = [];
    for (const arn of role.attachedPolicyArns) {
      const policy = this.policies.get(arn);
      if (!policy) continue;
      out.push({ name: policy.name, document: parsePolicyDocument(this.policyVersion(arn).document) });
    }
    for (const [name, doc] of role.inlinePolicies) out.push({ name, document: parsePolicyDocument(doc) });
    return out;
  }

  createInstanceProfile(spec: {
    name: string;
    path?: string | undefined;
    tags?: Readonly<Record<string, string>> | undefined;
  }): IamInstanceProfile {
    if (this.profiles.has(key(spec.name))) {
      throw new AwsApiError('EntityAlreadyExists', `Instance Profile ${spec.name} already exists.`, 409);
    }
    const path = spec.path ?? '/';
    const profile: IamInstanceProfile = {
      name: spec.name,
      id: this.ids.iamId('AIPA'),
      arn: `arn:aws:iam::${this.accountId}:instance-profile${path}${spec.name}`,
      path,
      createDate: this.now(),
      roleNames: [],
      tags: tagMap(spec.tags),
    };
    this.profiles.set(key(spec.name), profile);
    return profile;
  }

  instanceProfile(name: string): IamInstanceProfile | undefined {
    return this.profiles.get(key(name));
  }

  requireInstanceProfile(name: string): IamInstanceProfile {
    const profile = this.profiles.get(key(name));
    if (!profile) throw new AwsApiError('NoSuchEntity', `Instance Profile ${name} cannot be found.`, 404);
    return profile;
  }

  /** The reference an instance keeps to its profile. */
  instanceProfileRef(name: string): InstanceProfileRef {
    const p = this.requireInstanceProfile(name);
    return { name: p.name, arn: p.arn, id: p.id };
  }

  listInstanceProfiles(pathPrefix = '/'): IamInstanceProfile[] {
    return [...this.profiles.values()].filter((p) => p.path.startsWith(pathPrefix));
  }

  addRoleToInstanceProfile(profileName: string, roleName: string): void {
    const profile = this.requireInstanceProfile(profileName) as Mutable<IamInstanceProfile>;
    const role = this.requireRole(roleName);
    if (profile.roleNames.length >= 1) {
      throw new AwsApiError(
        'LimitExceeded',
        'Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1',
        409,
      );
    }
    profile.roleNames = [role.name];
    this.revisionCounter++;
  }

  removeRoleFromInstanceProfile(profileName: string, roleName: string): void {
    const profile = this.requireInstanceProfile(profileName) as Mutable<IamInstanceProfile>;
    if (!profile.roleNames.some((r) => key(r) === key(roleName))) {
      throw new AwsApiError('NoSuchEntity', `The role with name ${roleName} cannot be found.`, 404);
    }
    profile.roleNames = profile.roleNames.filter((r) => key(r) !== key(roleName));
    this.revisionCounter++;
  }

  deleteInstanceProfile(name: string): void {
    const profile = this.requireInstanceProfile(name);
    if (profile.roleNames.length > 0) {
      throw new AwsApiError(
        'DeleteConflict',
        'Cannot delete entity, must remove roles from instance profile first.',
        409,
      );
    }
    this.profiles.delete(key(name));
  }
}
