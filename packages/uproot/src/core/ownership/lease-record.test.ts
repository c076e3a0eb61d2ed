import { describe, expect, it } from 'vitest';
import { leaseRecordSchema } from './lease-record.js';

describe('the journal\u2019s lease record', () => {
  const record = {
    namespace: 'kube-system',
    name: 'cloud-controller-manager',
    holder: 'cp2_c',
    observedAt: '2024-01-01T00:03:20.000Z',
  };

  it('reads a record from before the looking step was kept', () => {
    expect(leaseRecordSchema.parse(record)).toEqual(record);
  });

  it('keeps the step whose gate looked, and refuses one that is no step', () => {
    expect(leaseRecordSchema.parse({ ...record, step: 'switch-to-external' }).step).toBe(
      'switch-to-external',
    );
    expect(leaseRecordSchema.parse({ ...record, step: 'upgrade-kubernetes-1.27' }).step).toBe(
      'upgrade-kubernetes-1.27',
    );
    expect(leaseRecordSchema.safeParse({ ...record, step: 'make-coffee' }).success).toBe(false);
  });
});
