import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';

const worker = (m: MutableSnapshot) => okValue(m.kube.nodes)[3]!;
const instance = (m: MutableSnapshot) => okValue(okValue(m.aws).instances)[3]!;

describe('provider-ids', () => {
  it('passes canonical providerIDs of live instances', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'provider-ids',
      ).status,
    ).toBe('pass');
  });

  it('warns a node without providerID and gives the patch that sets it', () => {
    let id = '';
    const s = snapshotWith((m) => {
      delete worker(m).providerID;
      id = instance(m).instanceId;
    });
    const r = resultOf(s, 'provider-ids');
    expect(r.status).toBe('warn');
    expect(r.status === 'warn' && r.fixes[0]).toMatchObject({
      type: 'commands',
      commands: [
        `kubectl patch node ip-10-0-0-11.us-west-2.compute.internal -p '{"spec":{"providerID":"aws:///us-west-2a/${id}"}}'`,
      ],
    });
  });

  it.each([
    ['rke2://ip-10-0-0-11', 'cannot be read by the CCM: scheme "rke2://" is not "aws://"'],
    [
      'aws:///us-west-2a/i-0123456789abcdef0',
      'which does not exist; cloud-node-lifecycle would delete the Node',
    ],
  ])('fails providerID %s', (providerID, text) => {
    const s = snapshotWith((m) => (worker(m).providerID = providerID));
    expect(resultOf(s, 'provider-ids')).toMatchObject({
      status: 'fail',
      details: [expect.stringContaining(text)],
    });
  });

  it('fails a providerID whose instance is terminated, or that disagrees with the name', () => {
    const gone = snapshotWith((m) => (instance(m).state = 'terminated'));
    expect(resultOf(gone, 'provider-ids').details[0]).toContain('terminated');
    const other = snapshotWith((m) => (worker(m).providerID = okValue(m.kube.nodes)[4]!.providerID!));
    expect(resultOf(other, 'provider-ids').details[0]).toMatch(
      /providerID names i-\w+ but the node name resolves to i-\w+/,
    );
  });

  it('warns accepted but non-canonical forms and a wrong zone', () => {
    const bare = snapshotWith((m) => (worker(m).providerID = instance(m).instanceId));
    expect(resultOf(bare, 'provider-ids')).toMatchObject({
      status: 'warn',
      details: [expect.stringContaining('not canonical')],
    });
    const zone = snapshotWith((m) => (worker(m).providerID = `aws:///us-west-2c/${instance(m).instanceId}`));
    expect(resultOf(zone, 'provider-ids').details[0]).toContain(
      "zone us-west-2c differs from the instance's us-west-2a",
    );
  });
});
