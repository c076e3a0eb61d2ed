import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MigrationLock } from '../../../packages/uproot/src/adapters/kube/migration-lock.js';
import type { EngineEvent } from '../../../packages/uproot/src/engine/events.js';
import { journalOf, run, sandbox, sandboxes } from './migrate-harness.js';
import { autoRollOut } from './small-plan.js';

afterEach(async () => {
  for (const sb of sandboxes.splice(0)) await sb.close();
});

describe('uproot migrate against the sandbox API server', () => {
  it('runs every step behind its gates, journals in kube-system and locally, and releases the lock', async () => {
    const sb = await sandbox();
    autoRollOut(sb.server);
    const events: EngineEvent[] = [];
    const result = await run(sb, {}, { events });
    expect(result.exitCode).toBe(0);
    expect(result.outcome).toMatchObject({ type: 'ran', result: { type: 'completed' } });
    const journal = await journalOf(sb);
    expect(journal?.steps.map((s) => s.state)).toEqual(['verified', 'verified', 'verified', 'verified']);
    expect(journal?.baseline.loadBalancers).toEqual([
      { namespace: 'default', name: 'front', hostnames: ['a1b2.elb.us-east-1.amazonaws.com'], ips: [] },
    ]);
    expect(journal?.leaseTimeline.map((o) => o.name).sort()).toEqual([
      'cloud-provider-extraction-migration',
      'kube-controller-manager',
    ]);
    expect(existsSync(join(sb.dir, '.uproot', 'test', 'journal.json'))).toBe(true);
    const lock = sb.server.store.get('coordination.k8s.io/v1/leases', 'kube-system', 'uproot-migration-lock');
    expect((lock?.spec as { holderIdentity: string }).holderIdentity).toBe('');
    expect(events.filter((e) => e.type === 'step-verified').map((e) => (e as { step: string }).step)).toEqual(
      ['grant-migration-lease', 'cordon-control-plane', 'install-ccm', 'roll-control-plane'],
    );
    // Journal state never contains managedFields or other noise from the server.
    expect(JSON.stringify(journal)).not.toContain('managedFields');
  });

  it('times out the DaemonSet gate on virtual time when nothing rolls it out, then resume re-verifies and completes', async () => {
    const sb = await sandbox();
    let rolling = false;
    autoRollOut(sb.server, { enabled: () => rolling });
    const first = await run(sb);
    expect(first.exitCode).toBe(1);
    expect(first.outcome).toMatchObject({
      type: 'ran',
      result: { type: 'gate-failed', step: 'install-ccm', result: { type: 'timed-out' } },
    });
    const failed = (await journalOf(sb))!.steps[2]!;
    expect(failed).toMatchObject({
      state: 'failed',
      phase: 'verify',
      reason: expect.stringMatching(/0 out of 0 new pods|does not exist|spec update to be observed/),
    });
    expect(sb.clock.now() - Date.UTC(2026, 0, 1)).toBeGreaterThanOrEqual(600_000);

    // Without --resume, a second run refuses to start over.
    await expect(run(sb, {}, { runId: 'run-2' })).rejects.toMatchObject({
      code: 'UP-MIGRATE-IN-PROGRESS',
      exitCode: 2,
    });

    rolling = true;
    sb.server.store.patch('apps/v1/daemonsets', 'kube-system', 'aws-cloud-controller-manager', 'merge', {
      metadata: { labels: { poke: 'x' } },
    });
    const second = await run(sb, { resume: true }, { runId: 'run-2' });
    expect(second.exitCode).toBe(0);
    expect((await journalOf(sb))!.runs.map((r) => [r.runId, r.resumed])).toEqual([
      ['run-1', false],
      ['run-2', true],
    ]);
  });

  it('refuses to run while another run holds the lock (exit 2, naming the holder)', async () => {
    const sb = await sandbox();
    await new MigrationLock(sb.objects(), {
      namespace: 'kube-system',
      holder: 'other-run',
      clock: sb.clock,
      purpose: 'uproot migrate',
    }).acquire();
    await expect(run(sb)).rejects.toMatchObject({
      code: 'UP-LOCK-HELD',
      exitCode: 2,
      message: expect.stringContaining('other-run'),
    });
    expect(await journalOf(sb)).toBeUndefined();
  });

  it('completes through 5% of requests failing with 500 or 429', async () => {
    const sb = await sandbox(11);
    autoRollOut(sb.server);
    const errors = sb.server.faults.add({ action: { type: 'status', code: 500 }, probability: 0.05 });
    const throttles = sb.server.faults.add({
      action: { type: 'status', code: 429, retryAfterSeconds: 1 },
      probability: 0.05,
    });
    const result = await run(sb);
    expect(result.exitCode).toBe(0);
    expect(errors.hits()).toBeGreaterThan(0);
    expect(throttles.hits()).toBeGreaterThan(0);
    expect((await journalOf(sb))!.steps.every((s) => s.state === 'verified')).toBe(true);
  });
});
