/**
 * Evaluates an instance role's policies against the actions the cloud provider needs, with the AWS policy
 * evaluation logic of @cloud-copilot/iam-simulate (wildcards, NotAction, explicit denies, permission
 * boundaries). Pure: no AWS calls; the policies come from the snapshot.
 */
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { actionMatchesPattern } from '@cloud-copilot/iam-expand';
import type { IamFacts, IamPolicyFacts, IamRoleFacts } from '../model/snapshot.js';
import type { Readable } from '../model/readable.js';
import type { ActionEvaluation, IamEvaluation, RoleEvaluation } from '../model/iam-evaluation.js';
import { asList, statementsOf } from './policy-document.js';
import { ALL_EVALUATED_ACTIONS } from './required-actions.js';

/** Evaluates every role in `iam` once (many nodes share a profile, so this is per role, not per node). */
export async function evaluateIam(
  iam: IamFacts,
  accountId: string,
  actions: readonly string[] = ALL_EVALUATED_ACTIONS,
): Promise<IamEvaluation> {
  const roles: Record<string, Readable<RoleEvaluation>> = {};
  for (const [name, role] of Object.entries(iam.roles)) {
    roles[name] =
      role.state === 'ok'
        ? await evaluateRole(role.value, accountId, actions)
        : { state: 'unavailable', reason: role.reason };
  }
  return { roles };
}

export async function evaluateRole(
  role: IamRoleFacts,
  accountId: string,
  actions: readonly string[],
): Promise<Readable<RoleEvaluation>> {
  const result: Record<string, ActionEvaluation> = {};
  for (const action of actions) {
    const simulation: Simulation = {
      request: {
        principal: role.arn,
        action,
        resource: { resource: '*', accountId },
        contextVariables: {},
      },
      identityPolicies: role.policies.map((p) => ({ name: policyLabel(p), policy: p.document })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(role.permissionsBoundary
        ? {
            permissionBoundaryPolicies: [
              { name: policyLabel(role.permissionsBoundary), policy: role.permissionsBoundary.document },
            ],
          }
        : {}),
    };
    const response = await runSimulation(simulation, {});
    if (response.resultType === 'error') {
      return {
        state: 'unavailable',
        reason: `the policies of role ${role.name} could not be evaluated: ${response.errors.message}`,
      };
    }
    result[action] = explain(action, response.overallResult, role);
  }
  return { state: 'ok', value: { roleName: role.name, actions: result } };
}

function explain(
  action: string,
  overall: 'Allowed' | 'ExplicitlyDenied' | 'ImplicitlyDenied',
  role: IamRoleFacts,
): ActionEvaluation {
  switch (overall) {
    case 'Allowed': {
      const grantedBy = matchingStatements(action, role.policies, 'Allow')[0];
      return grantedBy ? { decision: 'allowed', grantedBy } : { decision: 'allowed' };
    }
    case 'ExplicitlyDenied': {
      const policies = role.permissionsBoundary
        ? [...role.policies, role.permissionsBoundary]
        : role.policies;
      return { decision: 'explicit-deny', deniedBy: matchingStatements(action, policies, 'Deny') };
    }
    case 'ImplicitlyDenied':
      return { decision: 'implicit-deny' };
  }
}

/** Which statements of an effect name the action (Action patterns or NotAction exclusions), for messages. */
function matchingStatements(
  action: string,
  policies: readonly IamPolicyFacts[],
  effect: 'Allow' | 'Deny',
): string[] {
  const found: string[] = [];
  for (const policy of policies) {
    statementsOf(policy.document).forEach((statement, index) => {
      if (statement.Effect !== effect) return;
      const label = `${policyLabel(policy)} statement ${statement.Sid ?? index + 1}`;
      const pattern = asList(statement.Action).find((p) => actionMatchesPattern(action, p));
      if (pattern) found.push(`${label} (${pattern})`);
      else if (
        statement.NotAction &&
        !asList(statement.NotAction).some((p) => actionMatchesPattern(action, p))
      ) {
        found.push(`${label} (NotAction)`);
      }
    });
  }
  return found;
}

function policyLabel(policy: IamPolicyFacts): string {
  return policy.kind === 'managed' ? `managed policy ${policy.name}` : `inline policy ${policy.name}`;
}
