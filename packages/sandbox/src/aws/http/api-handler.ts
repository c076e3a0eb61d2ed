import type { Clock } from 'uproot';
import type { Authorizer } from '../auth/authorizer.js';
import type { CallerIdentity } from '../auth/principal.js';
import { parseCredentialScope } from '../auth/sigv4-scope.js';
import type { FaultInjector } from '../faults/fault-injector.js';
import type { LoggedService, RequestLog } from '../log/request-log.js';
import { AwsApiError } from '../protocol/aws-api-error.js';
import { QueryInput } from '../protocol/query-input.js';
import { ec2Envelope, ec2ErrorDocument, queryEnvelope, queryErrorDocument } from '../protocol/xml.js';
import type { AwsState } from '../state/aws-state.js';
import type { ServiceDefinition } from '../services/service-types.js';
import type { ServiceRegistry } from './service-registry.js';

export interface ApiDependencies {
  readonly state: AwsState;
  readonly registry: ServiceRegistry;
  readonly authorizer: Authorizer;
  readonly faults: FaultInjector;
  readonly log: RequestLog;
  readonly clock: Clock;
}

export interface ApiRequest {
  readonly method: string;
  /** The raw query string (without `?`). */
  readonly query: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export interface ApiResponse {
  readonly status: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

const GENERIC_NAMESPACE = 'https://sandbox.uproot.invalid/doc/';

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function respond(service: ServiceDefinition | undefined, requestId: string, error: AwsApiError): ApiResponse {
  const body =
    service?.descriptor.protocol === 'ec2'
      ? ec2ErrorDocument(error.code, error.message, requestId)
      : queryErrorDocument(
          service?.descriptor.namespace ?? GENERIC_NAMESPACE,
          error.type,
          error.code,
          error.message,
          requestId,
        );
  return {
    status: error.status,
    body,
    headers: { 'content-type': 'text/xml;charset=UTF-8', 'x-amzn-requestid': requestId },
  };
}

/** How a denial reads on the wire: EC2's UnauthorizedOperation, or AccessDenied everywhere else. */
function denial(
  service: ServiceDefinition,
  caller: CallerIdentity,
  action: string,
  resource: string,
  explicit: boolean,
): AwsApiError {
  const because = explicit
    ? `with an explicit deny in an identity-based policy`
    : `because no identity-based policy allows the ${action} action`;
  const on = resource === '*' ? '' : ` on resource: ${resource}`;
  if (service.descriptor.protocol === 'ec2') {
    return new AwsApiError(
      'UnauthorizedOperation',
      `You are not authorized to perform this operation. User: ${caller.arn} is not authorized to perform: ${action}${on} ${because}`,
      403,
    );
  }
  return new AwsApiError(
    'AccessDenied',
    `User: ${caller.arn} is not authorized to perform: ${action}${on} ${because}`,
    403,
  );
}

function unknownKey(service: ServiceDefinition): AwsApiError {
  if (service.descriptor.protocol === 'ec2') {
    return new AwsApiError(
      'AuthFailure',
      'AWS was not able to validate the provided access credentials',
      401,
    );
  }
  return new AwsApiError(
    'InvalidClientTokenId',
    'The security token included in the request is invalid.',
    403,
  );
}

/** Answers one AWS Query API call: route, identify, inject faults, authorize, handle, render, log. */
export async function handleApiRequest(deps: ApiDependencies, request: ApiRequest): Promise<ApiResponse> {
  const { state, log } = deps;
  state.ec2.instances.sweep();
  const requestId = state.ids.uuid();
  const at = deps.clock.now();
  const input = QueryInput.parse(request.body, request.query);
  const scope = parseCredentialScope(
    firstHeader(request.headers.authorization),
    new URLSearchParams(request.query).get('X-Amz-Credential'),
  );
  const action = input.string('Action') ?? '';
  const service = deps.registry.route(scope?.service, input.string('Version'));
  const loggedService: LoggedService = service?.descriptor.name ?? 'unknown';
  let caller: CallerIdentity | undefined;
  let fault: string | undefined;
  let errorCode: string | undefined;
  let response: ApiResponse;
  try {
    if (!service) {
      throw new AwsApiError(
        'InvalidAction',
        `No service answers signing name '${scope?.service ?? ''}' and Version '${input.string('Version') ?? ''}'`,
      );
    }
    if (!scope)
      throw new AwsApiError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403);
    const known = state.credentials.identify(scope.accessKeyId);
    if (!known && state.enforceIam) throw unknownKey(service);
    caller = known ?? state.credentials.adminIdentity(scope.accessKeyId);
    if (action === '') throw new AwsApiError('MissingAction', 'Missing Action', 400);
    const handler = Object.hasOwn(service.actions, action) ? service.actions[action] : undefined;
    if (!handler) {
      throw service.descriptor.protocol === 'ec2'
        ? new AwsApiError('InvalidAction', `The action ${action} is not valid for this web service.`)
        : new AwsApiError(
            'InvalidAction',
            `Could not find operation ${action} for version ${service.descriptor.version}`,
          );
    }
    const decision = deps.faults.decide({ service: loggedService, action, caller: caller.arn });
    if (decision.applied.length > 0) fault = decision.applied.join(',');
    if (decision.latencyMs > 0) await deps.clock.sleep(decision.latencyMs);
    if (decision.error) throw decision.error;
    const ctx = { state, input, caller, requestId, action };
    const iamAction =
      handler.iamAction === undefined ? `${service.descriptor.iamPrefix}:${action}` : handler.iamAction;
    if (state.enforceIam && caller.roleName !== undefined && iamAction !== null) {
      for (const resource of handler.resources?.(ctx) ?? ['*']) {
        const verdict = await deps.authorizer.decide(caller.roleName, caller.arn, iamAction, resource);
        if (verdict !== 'allowed')
          throw denial(service, caller, iamAction, resource, verdict === 'explicitDeny');
      }
    }
    const body = await handler.handle(ctx);
    const xml =
      service.descriptor.protocol === 'ec2'
        ? ec2Envelope(action, requestId, body ?? '')
        : queryEnvelope(action, service.descriptor.namespace, requestId, body);
    response = {
      status: 200,
      body: xml,
      headers: { 'content-type': 'text/xml;charset=UTF-8', 'x-amzn-requestid': requestId },
    };
  } catch (error) {
    const apiError = AwsApiError.is(error)
      ? error
      : new AwsApiError(
          service?.descriptor.protocol === 'ec2' ? 'InternalError' : 'InternalFailure',
          `The sandbox failed to answer: ${error instanceof Error ? error.message : String(error)}`,
          500,
        );
    errorCode = apiError.code;
    response = respond(service, requestId, apiError);
  }
  log.record({
    at,
    service: loggedService,
    action,
    caller: caller?.arn,
    accessKeyId: scope?.accessKeyId,
    status: response.status,
    errorCode,
    fault,
  });
  return response;
}
