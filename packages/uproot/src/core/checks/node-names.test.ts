import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';

const firstWorker = (m: MutableSnapshot) => okValue(m.kube.nodes)[3]!;

describe('node-names', () => {
  it('passes when every name is a PrivateDnsName of one live instance', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'node-names',
      ),
    ).toMatchObject({ status: 'pass', message: expect.stringContaining('all 6 nodes') });
  });

  it('fails a short hostname with the CCM symptom', () => {
    const s = snapshotWith((m) => (firstWorker(m).name = 'ip-10-0-0-11'));
    const r = resultOf(s, 'node-names');
    expect(r).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('failed to get provider ID for node ip-10-0-0-11: instance not found'),
      resources: [{ kind: 'Node', name: 'ip-10-0-0-11' }],
      details: [
        'ip-10-0-0-11: short hostname without a domain: EC2 reports PrivateDnsName as ip-10-0-0-11.us-west-2.compute.internal',
      ],
    });
  });

  it('fails a custom DHCP domain and suggests --hostname-override outside RKE/RKE2', () => {
    const s = snapshotWith((m) => {
      firstWorker(m).name = 'ip-10-0-0-11.corp.example.com';
      for (const n of okValue(m.kube.nodes)) {
        n.kubeletVersion = 'v1.26.15';
        delete n.annotations['rke2.io/node-args'];
      }
    });
    const r = resultOf(s, 'node-names');
    expect(r.status).toBe('fail');
    expect(r.details[0]).toContain('custom DHCP domain');
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'manual',
      description: expect.stringContaining('--hostname-override'),
    });
  });

  it('fails a name shared by two live instances', () => {
    const s = snapshotWith((m) => {
      const instances = okValue(okValue(m.aws).instances);
      instances.push({ ...structuredClone(instances[3]!), instanceId: 'i-0ffffffffffffffff' });
    });
    expect(resultOf(s, 'node-names').details[0]).toContain('2 live instances have this PrivateDnsName');
  });

  it('ignores terminated instances, as the CCM does', () => {
    const s = snapshotWith((m) => {
      const instances = okValue(okValue(m.aws).instances);
      instances.push({
        ...structuredClone(instances[3]!),
        instanceId: 'i-0ffffffffffffffff',
        state: 'terminated',
      });
    });
    expect(resultOf(s, 'node-names').status).toBe('pass');
  });

  it('accepts resource-based names, warns when they carry a custom domain', () => {
    const plain = snapshotWith(
      (m) => (firstWorker(m).name = okValue(okValue(m.aws).instances)[3]!.instanceId),
    );
    expect(resultOf(plain, 'node-names').status).toBe('pass');
    const regional = snapshotWith(
      (m) =>
        (firstWorker(m).name =
          `${okValue(okValue(m.aws).instances)[3]!.instanceId}.us-west-2.compute.internal`),
    );
    expect(resultOf(regional, 'node-names').status).toBe('pass');
    const custom = snapshotWith(
      (m) => (firstWorker(m).name = `${okValue(okValue(m.aws).instances)[3]!.instanceId}.aws.example.com`),
    );
    expect(resultOf(custom, 'node-names')).toMatchObject({
      status: 'warn',
      details: [expect.stringContaining('InvalidInstanceID.Malformed')],
    });
  });

  it('skips without AWS', () => {
    const s = snapshotWith((m) => (m.aws = { state: 'unavailable', reason: 'no AWS credentials' }));
    expect(resultOf(s, 'node-names')).toMatchObject({ status: 'skip', reason: 'no AWS credentials' });
  });
});
