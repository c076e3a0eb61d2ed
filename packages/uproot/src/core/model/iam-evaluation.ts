/**
 * The instance roles' policies judged against the cloud provider's required actions: what src/core/iam's
 * simulator returns and the preflight snapshot carries (it is derived between read and check).
 */
import type { Readable } from './readable.js';

export type ActionDecision = 'allowed' | 'implicit-deny' | 'explicit-deny';

export interface ActionEvaluation {
  readonly decision: ActionDecision;
  /** For an allowed action: the policy and action pattern that grant it (wildcards shown as written). */
  readonly grantedBy?: string;
  /** For an explicit deny: the policies and statements that deny it. */
  readonly deniedBy?: readonly string[];
}

export interface RoleEvaluation {
  readonly roleName: string;
  readonly actions: Readonly<Record<string, ActionEvaluation>>;
}

export interface IamEvaluation {
  /** By role name; `unavailable` when the role's policies could not be read or simulated. */
  readonly roles: Readonly<Record<string, Readable<RoleEvaluation>>>;
}
