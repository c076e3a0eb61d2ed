import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { IamStore } from '../state/iam-store.js';

export type Decision = 'allowed' | 'explicitDeny' | 'implicitDeny';

/** The cache is dropped whenever IAM changes; within one revision a decision never changes. */
const CACHE_LIMIT = 10_000;

/**
 * Decides whether a role may perform an action on a resource, by evaluating the role's attached and inline
 * policies with @cloud-copilot/iam-simulate (identity policies only: no SCPs, boundaries or resource policies,
 * which the sandbox does not model).
 */
export class Authorizer {
  private cache = new Map<string, Decision>();
  private cachedRevision = -1;

  constructor(
    private readonly iam: IamStore,
    private readonly accountId: string,
  ) {}

  async decide(roleName: string, principalArn: string, action: string, resource: string): Promise<Decision> {
    if (this.cachedRevision !== this.iam.revision) {
      this.cache = new Map();
      this.cachedRevision = this.iam.revision;
    }
    const key = `${roleName}\u0000${action}\u0000${resource}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const decision = await this.simulate(roleName, principalArn, action, resource);
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(key, decision);
    return decision;
  }

  private async simulate(
    roleName: string,
    principalArn: string,
    action: string,
    resource: string,
  ): Promise<Decision> {
    const identityPolicies = this.iam
      .effectivePolicies(roleName)
      .map((p) => ({ name: p.name, policy: p.document }));
    const run = (target: string) =>
      runSimulation(
        {
          identityPolicies,
          serviceControlPolicies: [],
          resourceControlPolicies: [],
          request: {
            action,
            principal: principalArn,
            resource: { accountId: this.accountId, resource: target },
            contextVariables: {},
          },
        },
        {},
      );
    let response = await run(resource);
    // Actions without resource-level permissions only accept `*`; retry rather than deny on a modelling gap.
    if (response.resultType === 'error' && resource !== '*') response = await run('*');
    if (response.resultType === 'error') return 'implicitDeny';
    switch (response.overallResult) {
      case 'Allowed':
        return 'allowed';
      case 'ExplicitlyDenied':
        return 'explicitDeny';
      default:
        return 'implicitDeny';
    }
  }
}
