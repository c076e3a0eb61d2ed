import { InputError } from 'uproot';
import { CredentialStore } from '../auth/credential-store.js';
import type { AwsCredentials, AwsPrincipal } from '../auth/principal.js';
import { AutoScalingStore } from './autoscaling-store.js';
import { ClassicElbStore } from './classic-elb-store.js';
import type { Ec2Instance } from './ec2-types.js';
import { Ec2Store } from './ec2-store.js';
import { Elbv2Store } from './elbv2-store.js';
import { IamStore } from './iam-store.js';
import { IdGenerator } from './ids.js';
import type { RunInstanceSpec, StateChange } from './instance-store.js';

export interface AwsStateOptions {
  readonly accountId: string;
  readonly region: string;
  readonly enforceIam: boolean;
  readonly adminUserName: string;
  readonly now: () => number;
  /** How long a terminated instance stays visible (clock ms). */
  readonly terminatedRetentionMs: number;
  /** Lifetime of credentials issued through IMDS and `credentialsFor` (clock ms). */
  readonly credentialTtlMs: number;
}

/**
 * The whole simulated account, for in-process use by scenarios and the twin. Every change is visible to the
 * next API call, since the HTTP handlers read the same stores.
 */
export class AwsState {
  readonly accountId: string;
  readonly region: string;
  /** Check signed calls against the caller's policies; may be switched at any time. */
  enforceIam: boolean;
  readonly ids: IdGenerator;
  readonly ec2: Ec2Store;
  readonly iam: IamStore;
  readonly elb: ClassicElbStore;
  readonly elbv2: Elbv2Store;
  readonly autoscaling: AutoScalingStore;
  readonly credentials: CredentialStore;
  readonly now: () => number;

  constructor(options: AwsStateOptions) {
    this.accountId = options.accountId;
    this.region = options.region;
    this.enforceIam = options.enforceIam;
    this.now = options.now;
    this.ids = new IdGenerator();
    this.ec2 = new Ec2Store(
      this.ids,
      options.region,
      options.accountId,
      options.now,
      options.terminatedRetentionMs,
    );
    this.iam = new IamStore(this.ids, options.accountId, options.now);
    this.elb = new ClassicElbStore(this.ids, this.ec2, options.now);
    this.elbv2 = new Elbv2Store(this.ids, this.ec2, options.now);
    this.autoscaling = new AutoScalingStore(this.ids, this.ec2, options.now);
    this.credentials = new CredentialStore(
      this.ids,
      options.accountId,
      options.adminUserName,
      (roleName) => this.iam.role(roleName)?.id,
      options.now,
      options.credentialTtlMs,
    );
  }

  /** Launches one instance (its own reservation), resolving the instance profile by name. */
  runInstance(spec: RunInstanceSpec = {}): Ec2Instance {
    return this.runInstances([spec]).instances[0]!;
  }

  /** Launches instances in one reservation, as one RunInstances call would. */
  runInstances(specs: readonly RunInstanceSpec[]): { reservationId: string; instances: Ec2Instance[] } {
    return this.ec2.runInstances(specs, (name) => this.iam.instanceProfileRef(name));
  }

  terminateInstance(id: string): StateChange {
    return this.ec2.terminate([id])[0]!;
  }

  /** The role an instance's profile currently carries (what IMDS hands out credentials for). */
  instanceRoleName(instanceId: string): string | undefined {
    const profile = this.ec2.instance(instanceId)?.iamInstanceProfile;
    if (!profile) return undefined;
    return this.iam.instanceProfile(profile.name)?.roleNames[0];
  }

  /** Credentials that sign as the principal: the admin key, a role session, or what IMDS gives an instance. */
  credentialsFor(principal: AwsPrincipal): AwsCredentials {
    if (principal.type === 'role') this.iam.requireRole(principal.roleName);
    if (principal.type === 'instance') {
      const role = this.instanceRoleName(principal.instanceId);
      if (role === undefined) {
        throw new InputError(
          'UP-AWS-NO-INSTANCE-ROLE',
          `instance ${principal.instanceId} does not exist or has no instance profile with a role`,
          {
            location: { field: 'instanceId', value: principal.instanceId },
            hint: 'launch it with iamInstanceProfile set to a profile that has a role',
          },
        );
      }
      return this.credentials.issue(principal, role);
    }
    return this.credentials.issue(principal);
  }
}
