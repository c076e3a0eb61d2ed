import { DescribeInstanceTopologyCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { emptyAccountSeed, type AwsSeed } from '../../../packages/sandbox/src/aws/index.js';
import { allowAll, clientsFor, emulatorFor, failureOf } from './helpers.js';

const GPU = 'i-0e0000000000000a1';
const GENERAL = 'i-0e0000000000000a2';

const seed = (): AwsSeed => ({
  ...emptyAccountSeed({ enforceIam: true }),
  managedPolicies: [
    { name: 'describe-instances', document: allowAll('ec2:DescribeInstances') },
    { name: 'topology', document: allowAll('ec2:DescribeInstanceTopology') },
  ],
  roles: [
    { name: 'old-ccm', attachedPolicies: ['describe-instances'] },
    { name: 'new-ccm', attachedPolicies: ['describe-instances', 'topology'] },
  ],
  instanceProfiles: [
    { name: 'old-ccm', roles: ['old-ccm'] },
    { name: 'new-ccm', roles: ['new-ccm'] },
  ],
  instances: [
    { id: GPU, instanceType: 'p4d.24xlarge', iamInstanceProfile: 'new-ccm' },
    { id: GENERAL, instanceType: 'm5.large', iamInstanceProfile: 'old-ccm' },
  ],
});

describe('EC2 DescribeInstanceTopology (the AWS SDK against the emulator)', () => {
  it('answers with three network nodes for supported instance types and leaves the others out', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const admin = clientsFor(emulator);
    const all = await admin.ec2.send(new DescribeInstanceTopologyCommand({}));
    expect(all.Instances?.map((i) => i.InstanceId)).toEqual([GPU]);
    const [gpu] = all.Instances ?? [];
    expect(gpu).toMatchObject({ InstanceType: 'p4d.24xlarge', AvailabilityZone: expect.any(String) });
    expect(gpu?.NetworkNodes).toHaveLength(3);
    expect(gpu?.NetworkNodes?.every((n) => /^nn-[0-9a-f]{17}$/.test(n))).toBe(true);
    // The CCM asks for one instance at a time: an unsupported type gives an empty answer, not an error.
    const general = await admin.ec2.send(new DescribeInstanceTopologyCommand({ InstanceIds: [GENERAL] }));
    expect(general.Instances).toEqual([]);
    const unknown = await failureOf(
      admin.ec2.send(new DescribeInstanceTopologyCommand({ InstanceIds: ['i-0e00000000000dead'] })),
    );
    expect(unknown.name).toBe('InvalidInstanceID.NotFound');
  });

  it('refuses a role without ec2:DescribeInstanceTopology with UnauthorizedOperation, as EC2 does', async () => {
    const { emulator } = await emulatorFor({ seed: seed() });
    const oldCcm = clientsFor(emulator, emulator.credentialsFor({ type: 'instance', instanceId: GENERAL }));
    const denied = await failureOf(
      oldCcm.ec2.send(new DescribeInstanceTopologyCommand({ InstanceIds: [GENERAL] })),
    );
    expect(denied.name).toBe('UnauthorizedOperation');
    expect(denied.message).toContain('is not authorized to perform: ec2:DescribeInstanceTopology');
    const newCcm = clientsFor(emulator, emulator.credentialsFor({ type: 'instance', instanceId: GPU }));
    const ok = await newCcm.ec2.send(new DescribeInstanceTopologyCommand({ InstanceIds: [GPU] }));
    expect(ok.Instances?.[0]?.NetworkNodes).toHaveLength(3);
  });
});
