import { paginate } from '../paging/page-token.js';
import { AwsApiError } from '../protocol/aws-api-error.js';
import type { QueryInput } from '../protocol/query-input.js';
import type { XmlObject } from '../protocol/xml.js';
import type { AwsState } from '../state/aws-state.js';
import type { IamInstanceProfile, IamManagedPolicy, IamRole } from '../state/iam-store.js';
import type { Authorizer } from '../auth/authorizer.js';
import type { ActionContext, ActionHandler, ActionTable, ServiceDefinition } from './service-types.js';
import { invalidMarker, pageSize, readTags, result, tagList } from './query-common.js';

/** IAM returns policy documents percent-encoded; the SDK hands them over still encoded. */
const encodeDocument = (text: string): string => encodeURIComponent(text);

function roleXml(role: IamRole, withTags: boolean): XmlObject {
  return {
    Path: role.path,
    RoleName: role.name,
    RoleId: role.id,
    Arn: role.arn,
    CreateDate: new Date(role.createDate),
    AssumeRolePolicyDocument: encodeDocument(role.assumeRolePolicyDocument),
    Description: role.description,
    MaxSessionDuration: role.maxSessionDuration,
    Tags: withTags && role.tags.size > 0 ? tagList(role.tags) : undefined,
    RoleLastUsed: withTags ? {} : undefined,
  };
}

function profileXml(state: AwsState, p: IamInstanceProfile): XmlObject {
  return {
    Path: p.path,
    InstanceProfileName: p.name,
    InstanceProfileId: p.id,
    Arn: p.arn,
    CreateDate: new Date(p.createDate),
    Roles: p.roleNames
      .map((r) => state.iam.role(r))
      .filter((r) => r !== undefined)
      .map((r) => roleXml(r, false)),
    Tags: p.tags.size > 0 ? tagList(p.tags) : undefined,
  };
}

function policyXml(state: AwsState, p: IamManagedPolicy): XmlObject {
  return {
    PolicyName: p.name,
    PolicyId: p.id,
    Arn: p.arn,
    Path: p.path,
    DefaultVersionId: p.defaultVersionId,
    AttachmentCount: state.iam.attachmentCount(p.arn),
    PermissionsBoundaryUsageCount: 0,
    IsAttachable: true,
    Description: p.description,
    CreateDate: new Date(p.createDate),
    UpdateDate: new Date(p.updateDate),
  };
}

/** Marker/MaxItems paging with IsTruncated, IAM's style (default page 100). */
function page<T>(
  input: QueryInput,
  listing: string,
  items: readonly T[],
  seqOf: (item: T) => number,
): { items: T[]; fields: XmlObject } {
  const limit = pageSize(input, 'MaxItems', 1000) ?? 100;
  const p = paginate(items, seqOf, {
    listing,
    token: input.string('Marker'),
    limit,
    invalid: invalidMarker(),
  });
  return { items: p.items, fields: { IsTruncated: p.next !== undefined, Marker: p.next } };
}

const account = (state: AwsState): string => state.accountId;
const roleResource = ({ state, input }: ActionContext): string[] => [
  `arn:aws:iam::${account(state)}:role/${input.string('RoleName') ?? '*'}`,
];
const profileResource = ({ state, input }: ActionContext): string[] => [
  `arn:aws:iam::${account(state)}:instance-profile/${input.string('InstanceProfileName') ?? '*'}`,
];
const policyResource = ({ input }: ActionContext): string[] => [input.string('PolicyArn') ?? '*'];

/** Evaluates actions for a principal the way SimulatePrincipalPolicy reports them. */
function simulatePrincipalPolicy(authorizer: Authorizer): ActionHandler {
  return {
    resources: ({ input }) => [input.string('PolicySourceArn') ?? '*'],
    handle: async ({ state, input }) => {
      const source = input.requiredString('PolicySourceArn');
      const actions = input.list('ActionNames', 'member');
      if (actions.length === 0) throw new AwsApiError('ValidationError', 'ActionNames must not be empty');
      const resources = input.list('ResourceArns', 'member');
      const targets = resources.length > 0 ? resources : ['*'];
      const roleMatch =
        /^arn:aws:(?:iam|sts)::\d{12}:(?:role(?:\/.*)?|assumed-role)\/([^/]+)(?:\/[^/]*)?$/.exec(source);
      const isAdmin = source === state.credentials.adminIdentity(undefined).arn;
      if (!roleMatch && !isAdmin) throw new AwsApiError('InvalidInput', `Invalid ARN: ${source}`);
      const roleName = roleMatch?.[1];
      if (roleName !== undefined) state.iam.requireRole(roleName);
      const evaluations: XmlObject[] = [];
      for (const action of actions) {
        const decisions = [];
        for (const resource of targets) {
          const decision =
            roleName === undefined ? 'allowed' : await authorizer.decide(roleName, source, action, resource);
          decisions.push({ resource, decision });
        }
        const overall =
          decisions.find((d) => d.decision === 'explicitDeny') ??
          decisions.find((d) => d.decision === 'implicitDeny') ??
          decisions[0]!;
        evaluations.push({
          EvalActionName: action,
          EvalResourceName: targets.length === 1 ? targets[0] : '*',
          EvalDecision: overall.decision,
          MatchedStatements: [],
          MissingContextValues: [],
          ResourceSpecificResults:
            targets.length > 1
              ? decisions.map((d) => ({
                  EvalResourceName: d.resource,
                  EvalResourceDecision: d.decision,
                  MatchedStatements: [],
                  MissingContextValues: [],
                }))
              : undefined,
        });
      }
      return result({ EvaluationResults: evaluations, IsTruncated: false });
    },
  };
}

// eslint-disable-next-line max-lines-per-function -- data table
function actionTable(authorizer: Authorizer): ActionTable {
  return {
    GetRole: {
      resources: roleResource,
      handle: ({ state, input }) =>
        result({ Role: roleXml(state.iam.requireRole(input.requiredString('RoleName')), true) }),
    },
    ListRoles: {
      handle: ({ state, input }) => {
        const all = state.iam.listRoles(input.string('PathPrefix'));
        const p = page(input, 'ListRoles', all, (r) => all.indexOf(r));
        return result({ Roles: p.items.map((r) => roleXml(r, false)), ...p.fields });
      },
    },
    CreateRole: {
      resources: roleResource,
      handle: ({ state, input }) =>
        result({
          Role: roleXml(
            state.iam.createRole({
              name: input.requiredString('RoleName'),
              path: input.string('Path'),
              assumeRolePolicyDocument: input.requiredString('AssumeRolePolicyDocument'),
              description: input.string('Description'),
              maxSessionDuration: input.int('MaxSessionDuration'),
              tags: readTags(input),
            }),
            true,
          ),
        }),
    },
    DeleteRole: {
      resources: roleResource,
      handle: ({ state, input }) => {
        state.iam.deleteRole(input.requiredString('RoleName'));
        return undefined;
      },
    },
    GetInstanceProfile: {
      resources: profileResource,
      handle: ({ state, input }) =>
        result({
          InstanceProfile: profileXml(
            state,
            state.iam.requireInstanceProfile(input.requiredString('InstanceProfileName')),
          ),
        }),
    },
    ListInstanceProfiles: {
      handle: ({ state, input }) => {
        const all = state.iam.listInstanceProfiles(input.string('PathPrefix'));
        const p = page(input, 'ListInstanceProfiles', all, (x) => all.indexOf(x));
        return result({ InstanceProfiles: p.items.map((x) => profileXml(state, x)), ...p.fields });
      },
    },
    ListInstanceProfilesForRole: {
      resources: roleResource,
      handle: ({ state, input }) => {
        const role = state.iam.requireRole(input.requiredString('RoleName'));
        const all = state.iam.listInstanceProfiles().filter((x) => x.roleNames.includes(role.name));
        const p = page(input, 'ListInstanceProfilesForRole', all, (x) => all.indexOf(x));
        return result({ InstanceProfiles: p.items.map((x) => profileXml(state, x)), ...p.fields });
      },
    },
    CreateInstanceProfile: {
      resources: profileResource,
      handle: ({ state, input }) =>
        result({
          InstanceProfile: profileXml(
            state,
            state.iam.createInstanceProfile({
              name: input.requiredString('InstanceProfileName'),
              path: input.string('Path'),
              tags: readTags(input),
            }),
          ),
        }),
    },
    DeleteInstanceProfile: {
      resources: profileResource,
      handle: ({ state, input }) => {
        state.iam.deleteInstanceProfile(input.requiredString('InstanceProfileName'));
        return undefined;
      },
    },
    AddRoleToInstanceProfile: {
      resources: profileResource,
      handle: ({ state, input }) => {
        state.iam.addRoleToInstanceProfile(
          input.requiredString('InstanceProfileName'),
          input.requiredString('RoleName'),
        );
        return undefined;
      },
    },
    RemoveRoleFromInstanceProfile: {
      resources: profileResource,
      handle: ({ state, input }) => {
        state.iam.removeRoleFromInstanceProfile(
          input.requiredString('InstanceProfileName'),
          input.requiredString('RoleName'),
        );
        return undefined;
      },
    },
    ListAttachedRolePolicies: {
      resources: roleResource,
      handle: ({ state, input }) => {
        const role = state.iam.requireRole(input.requiredString('RoleName'));
        const all = role.attachedPolicyArns.map((arn) => ({
          arn,
          name: state.iam.policy(arn)?.name ?? arn.split('/').pop()!,
        }));
        const p = page(input, 'ListAttachedRolePolicies', all, (x) => all.indexOf(x));
        return result({
          AttachedPolicies: p.items.map((x) => ({ PolicyName: x.name, PolicyArn: x.arn })),
          ...p.fields,
        });
      },
    },
    ListRolePolicies: {
      resources: roleResource,
      handle: ({ state, input }) => {
        const names = [...state.iam.requireRole(input.requiredString('RoleName')).inlinePolicies.keys()];
        const p = page(input, 'ListRolePolicies', names, (x) => names.indexOf(x));
        return result({ PolicyNames: p.items, ...p.fields });
      },
    },
    GetRolePolicy: {
      resources: roleResource,
      handle: ({ state, input }) => {
        const roleName = input.requiredString('RoleName');
        const policyName = input.requiredString('PolicyName');
        const doc = state.iam.getRolePolicy(roleName, policyName);
        return result({
          RoleName: state.iam.requireRole(roleName).name,
          PolicyName: policyName,
          PolicyDocument: encodeDocument(doc),
        });
      },
    },
    PutRolePolicy: {
      resources: roleResource,
      handle: ({ state, input }) => {
        state.iam.putRolePolicy(
          input.requiredString('RoleName'),
          input.requiredString('PolicyName'),
          input.requiredString('PolicyDocument'),
        );
        return undefined;
      },
    },
    DeleteRolePolicy: {
      resources: roleResource,
      handle: ({ state, input }) => {
        state.iam.deleteRolePolicy(input.requiredString('RoleName'), input.requiredString('PolicyName'));
        return undefined;
      },
    },
    AttachRolePolicy: {
      resources: roleResource,
      handle: ({ state, input }) => {
        state.iam.attachRolePolicy(input.requiredString('RoleName'), input.requiredString('PolicyArn'));
        return undefined;
      },
    },
    DetachRolePolicy: {
      resources: roleResource,
      handle: ({ state, input }) => {
        state.iam.detachRolePolicy(input.requiredString('RoleName'), input.requiredString('PolicyArn'));
        return undefined;
      },
    },
    CreatePolicy: {
      resources: ({ state, input }) => [
        `arn:aws:iam::${account(state)}:policy/${input.string('PolicyName') ?? '*'}`,
      ],
      handle: ({ state, input }) =>
        result({
          Policy: policyXml(
            state,
            state.iam.createPolicy({
              name: input.requiredString('PolicyName'),
              document: input.requiredString('PolicyDocument'),
              path: input.string('Path'),
              description: input.string('Description'),
            }),
          ),
        }),
    },
    CreatePolicyVersion: {
      resources: policyResource,
      handle: ({ state, input }) => {
        const v = state.iam.createPolicyVersion(
          input.requiredString('PolicyArn'),
          input.requiredString('PolicyDocument'),
          input.bool('SetAsDefault') ?? false,
        );
        const isDefault =
          state.iam.requirePolicy(input.requiredString('PolicyArn')).defaultVersionId === v.versionId;
        return result({
          PolicyVersion: {
            VersionId: v.versionId,
            IsDefaultVersion: isDefault,
            CreateDate: new Date(v.createDate),
          },
        });
      },
    },
    GetPolicy: {
      resources: policyResource,
      handle: ({ state, input }) =>
        result({ Policy: policyXml(state, state.iam.requirePolicy(input.requiredString('PolicyArn'))) }),
    },
    GetPolicyVersion: {
      resources: policyResource,
      handle: ({ state, input }) => {
        const arn = input.requiredString('PolicyArn');
        const v = state.iam.policyVersion(arn, input.requiredString('VersionId'));
        return result({
          PolicyVersion: {
            Document: encodeDocument(v.document),
            VersionId: v.versionId,
            IsDefaultVersion: state.iam.requirePolicy(arn).defaultVersionId === v.versionId,
            CreateDate: new Date(v.createDate),
          },
        });
      },
    },
    ListPolicies: {
      handle: ({ state, input }) => {
        const scope = input.string('Scope') ?? 'All';
        const onlyAttached = input.bool('OnlyAttached') ?? false;
        const all = state.iam
          .listPolicies()
          .filter((p) => scope === 'All' || (scope === 'AWS') === p.arn.startsWith('arn:aws:iam::aws:'))
          .filter((p) => !onlyAttached || state.iam.attachmentCount(p.arn) > 0);
        const p = page(input, 'ListPolicies', all, (x) => all.indexOf(x));
        return result({ Policies: p.items.map((x) => policyXml(state, x)), ...p.fields });
      },
    },
    SimulatePrincipalPolicy: simulatePrincipalPolicy(authorizer),
  };
}

export function iamService(authorizer: Authorizer): ServiceDefinition {
  return {
    descriptor: {
      name: 'iam',
      signingName: 'iam',
      version: '2010-05-08',
      namespace: 'https://iam.amazonaws.com/doc/2010-05-08/',
      protocol: 'query',
      iamPrefix: 'iam',
    },
    actions: actionTable(authorizer),
  };
}
