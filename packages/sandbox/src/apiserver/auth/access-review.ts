import { isJsonObject, type JsonObject } from '../kube-object.js';
import { badRequest } from '../status/api-status-error.js';
import type { UserInfo } from './identity.js';
import type { RbacAuthorizer } from './rbac-authorizer.js';
import type { RequestAttributes } from './rbac-rules.js';

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** SubjectAccessReview spec → the attributes the authorizer checks. */
function attributesOf(spec: JsonObject, user: UserInfo, namespaceOverride?: string): RequestAttributes {
  const resource = isJsonObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const nonResource = isJsonObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  if (resource) {
    return {
      user,
      verb: str(resource.verb),
      isResourceRequest: true,
      path: '',
      apiGroup: str(resource.group),
      apiVersion: str(resource.version),
      resource: str(resource.resource),
      subresource: str(resource.subresource),
      namespace: namespaceOverride ?? str(resource.namespace),
      name: str(resource.name),
    };
  }
  if (nonResource) {
    return {
      user,
      verb: str(nonResource.verb),
      isResourceRequest: false,
      path: str(nonResource.path),
      apiGroup: '',
      apiVersion: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
    };
  }
  throw badRequest('exactly one of nonResourceAttributes or resourceAttributes must be specified');
}

/**
 * Answers SelfSubjectAccessReview (as the caller), SubjectAccessReview and LocalSubjectAccessReview (as the
 * user in the spec) from the same authorizer that guards requests. Returns the review with its status.
 */
export function reviewAccess(
  authorizer: RbacAuthorizer,
  kind: string,
  body: unknown,
  caller: UserInfo,
  requestNamespace: string,
): JsonObject {
  if (!isJsonObject(body)) throw badRequest('the access review must be an object');
  const spec = isJsonObject(body.spec) ? body.spec : {};
  let subject: UserInfo;
  if (kind === 'SelfSubjectAccessReview') {
    subject = caller;
  } else {
    const groups = Array.isArray(spec.groups)
      ? spec.groups.filter((g): g is string => typeof g === 'string')
      : [];
    if (!str(spec.user) && groups.length === 0)
      throw badRequest('at least one of user or group must be specified');
    subject = { name: str(spec.user), groups };
  }
  const attrs = attributesOf(
    spec,
    subject,
    kind === 'LocalSubjectAccessReview' ? requestNamespace : undefined,
  );
  const decision = authorizer.authorize(attrs);
  const status: JsonObject = { allowed: decision.allowed };
  if (decision.reason) status.reason = decision.reason;
  else if (!decision.allowed) status.reason = '';
  return {
    kind,
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null, ...(isJsonObject(body.metadata) ? body.metadata : {}) },
    spec,
    status,
  };
}
