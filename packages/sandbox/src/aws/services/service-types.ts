import type { CallerIdentity } from '../auth/principal.js';
import type { QueryInput } from '../protocol/query-input.js';
import type { AwsState } from '../state/aws-state.js';

export type ServiceName = 'ec2' | 'elb' | 'elbv2' | 'iam' | 'sts' | 'autoscaling';

/** How a service is reached and how it answers. */
export interface ServiceDescriptor {
  readonly name: ServiceName;
  /** The SigV4 signing name in the credential scope. */
  readonly signingName: string;
  readonly version: string;
  readonly namespace: string;
  /** `ec2`: no Result wrapper, `item` lists, `<Response><Errors>` errors; `query`: the rest. */
  readonly protocol: 'ec2' | 'query';
  /** The IAM service prefix for authorization (`ec2`, `elasticloadbalancing`, …). */
  readonly iamPrefix: string;
}

export interface ActionContext {
  readonly state: AwsState;
  readonly input: QueryInput;
  readonly caller: CallerIdentity;
  readonly requestId: string;
  readonly action: string;
}

/** One API action. Authorization has already run when a handler is called. */
export interface ActionHandler {
  /**
   * The IAM action checked when IAM is enforced, `<prefix>:<Action>` when omitted; null for actions AWS never
   * denies (sts:GetCallerIdentity).
   */
  readonly iamAction?: string | null;
  /** Resource ARNs to authorize against; `*` when omitted. */
  readonly resources?: (ctx: ActionContext) => readonly string[];
  /**
   * The response body: for EC2 the elements after `requestId`; for query services the content of
   * `<ActionResult>` (undefined for actions whose response has no Result element).
   */
  readonly handle: (ctx: ActionContext) => string | undefined | Promise<string | undefined>;
}

export type ActionTable = Readonly<Record<string, ActionHandler>>;

export interface ServiceDefinition {
  readonly descriptor: ServiceDescriptor;
  readonly actions: ActionTable;
}
