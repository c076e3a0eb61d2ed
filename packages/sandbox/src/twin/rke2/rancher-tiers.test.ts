import { describe, expect, it } from 'vitest';
import type { NodeRole } from '../layout/cluster-layout.js';
import {
  calculateConcurrency,
  hasCapacity,
  rancherDrainOptions,
  rancherTiers,
  tierMessage,
} from './rancher-tiers.js';

// rancher/rancher pkg/capr/planner/planner.go calculateConcurrency: an integer as given (0: no limit),
// "" → 1, a percentage of all the tier's machines rounded up.
describe('calculateConcurrency', () => {
  it('rolls one machine at a time by default and when set to "1"', () => {
    expect(calculateConcurrency('', 3)).toEqual({ ok: true, concurrency: 1 });
    expect(calculateConcurrency('1', 3)).toEqual({ ok: true, concurrency: 1 });
  });
  it('takes a number as given, and 0 as no limit', () => {
    expect(calculateConcurrency('2', 3)).toEqual({ ok: true, concurrency: 2 });
    expect(calculateConcurrency('0', 3)).toEqual({ ok: true, concurrency: 0 });
    expect(hasCapacity(0, 100)).toBe(true);
    expect(hasCapacity(2, 1)).toBe(true);
    expect(hasCapacity(2, 2)).toBe(false);
  });
  it('takes a percentage of the whole tier, rounded up', () => {
    expect(calculateConcurrency('50%', 3)).toEqual({ ok: true, concurrency: 2 });
    expect(calculateConcurrency('34%', 3)).toEqual({ ok: true, concurrency: 2 });
    expect(calculateConcurrency('33%', 3)).toEqual({ ok: true, concurrency: 1 });
    expect(calculateConcurrency('10%', 25)).toEqual({ ok: true, concurrency: 3 });
    // ParseFloat after TrimSuffix("%"): a bare decimal is a percentage too.
    expect(calculateConcurrency('50.5', 2)).toEqual({ ok: true, concurrency: 2 });
  });
  it('refuses what is neither, as the planner does', () => {
    const parsed = calculateConcurrency('two', 3);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(/^concurrency must be a number or a percentage: /);
  });
});

const machine = (machineName: string, ...roles: NodeRole[]) => ({ instance: { machineName, roles } });

describe('rancherTiers', () => {
  it('puts the init node alone first, then etcd, control plane and the workers, each in name order', () => {
    const machines = [
      machine('w-b', 'worker'),
      machine('cp-b', 'control-plane'),
      machine('e-c', 'etcd'),
      machine('e-a', 'etcd'),
      machine('cp-a', 'control-plane'),
      machine('w-a', 'worker'),
      machine('e-b', 'etcd'),
    ];
    const tiers = rancherTiers(machines, 'e-b', {
      upgradeStrategy: { controlPlaneConcurrency: '2', workerConcurrency: '50%' },
    });
    expect(
      tiers.map((t) => [t.name, t.machines.map((m) => m.instance.machineName), t.maxUnavailable]),
    ).toEqual([
      ['bootstrap', ['e-b'], '1'],
      ['etcd', ['e-a', 'e-c'], '1'],
      ['control plane', ['cp-a', 'cp-b'], '2'],
      ['worker', ['w-a', 'w-b'], '50%'],
    ]);
  });
  it('rolls combined etcd + control-plane machines with etcd, one at a time', () => {
    const all = [machine('a', 'etcd', 'control-plane'), machine('b', 'etcd', 'control-plane')];
    const tiers = rancherTiers(all, 'a', { upgradeStrategy: { controlPlaneConcurrency: '0' } });
    expect(tiers.find((t) => t.name === 'etcd')!.machines.map((m) => m.instance.machineName)).toEqual(['b']);
    // They are in the control-plane tier too, already in sync by the time it runs.
    expect(
      tiers.find((t) => t.name === 'control plane')!.machines.map((m) => m.instance.machineName),
    ).toEqual(['b']);
  });
  it('takes the control-plane drain options for the first three tiers and the worker ones for workers', () => {
    const tiers = rancherTiers([machine('w', 'worker')], undefined, {
      upgradeStrategy: { controlPlaneDrainOptions: { enabled: true }, workerDrainOptions: { timeout: 30 } },
    });
    expect(tiers.map((t) => t.drain.enabled)).toEqual([true, true, true, false]);
    expect(tiers[3]!.drain.timeoutSeconds).toBe(30);
  });
});

describe('rancherDrainOptions', () => {
  it('defaults as the machine-drain controller does (ignoreDaemonSets unset → true, timeout 0 → 600 s)', () => {
    expect(rancherDrainOptions({ enabled: true })).toMatchObject({
      enabled: true,
      ignoreDaemonSets: true,
      timeoutSeconds: 600,
      force: false,
      deleteEmptyDirData: false,
      gracePeriodSeconds: -1,
    });
    expect(rancherDrainOptions({ ignoreDaemonSets: false }).ignoreDaemonSets).toBe(false);
  });
});

describe('tierMessage', () => {
  it('names uncordoning first, then draining, then configuring, at most three, details for one', () => {
    expect(
      tierMessage('worker', [
        { name: 'w3', phase: 'configuring' },
        { name: 'w1', phase: 'draining', detail: 'draining node' },
      ]),
    ).toBe('draining worker node(s) w1: draining node');
    expect(
      tierMessage('control plane', [
        { name: 'c2', phase: 'configuring', detail: 'waiting for plan to be applied' },
        { name: 'c1', phase: 'configuring' },
      ]),
    ).toBe('configuring control plane node(s) c1,c2');
    expect(
      tierMessage(
        'etcd',
        ['e5', 'e1', 'e3', 'e2', 'e4'].map((name) => ({ name, phase: 'configuring' as const })),
      ),
    ).toBe('configuring etcd node(s) e1,e2,e3 and 2 more');
    expect(
      tierMessage('worker', [{ name: 'w', phase: 'uncordoning', detail: 'waiting for uncordon to finish' }]),
    ).toBe('uncordoning worker node(s) w: waiting for uncordon to finish');
  });
});
