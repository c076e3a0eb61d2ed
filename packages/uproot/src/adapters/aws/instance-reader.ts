/** EC2 instances by id for verify, through the same SDK clients preflight uses (credentials and endpoints from the environment). */
import { createAwsClients } from './aws-clients.js';
import { describeInstances } from './ec2-reader.js';

/** An EC2 instance as verify needs it. */
export interface InstanceFact {
  readonly instanceId: string;
  readonly availabilityZone: string;
  readonly privateDnsName: string;
  readonly state: string;
}

/** Reads instances by id; throws when EC2 cannot be read. */
export type InstanceReader = (region: string, instanceIds: readonly string[]) => Promise<InstanceFact[]>;

export function ec2Instances(env: Readonly<Record<string, string | undefined>>): InstanceReader {
  return async (region, ids) => {
    const clients = createAwsClients({ region, env });
    try {
      return (await describeInstances(clients.ec2, 'instance-id', ids)).map((i) => ({
        instanceId: i.instanceId,
        availabilityZone: i.availabilityZone,
        privateDnsName: i.privateDnsName,
        state: i.state,
      }));
    } finally {
      clients.destroy();
    }
  };
}
