import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { registerCommands, runCli } from '../../../packages/uproot/src/cli/program.js';
import { addRehearseCommand } from '../../../packages/sandbox/src/cli/sandbox-rehearse.js';
import { rehearseSandboxMigration } from '../../../packages/sandbox/src/rehearsal/index.js';
import { rehearsalDocument, renderRehearsalText } from '../../../packages/sandbox/src/rehearsal/index.js';

// The `sandbox` group belongs to src/cli/commands/sandbox.ts; this process registers just the subcommand.
registerCommands((program: Command, ctx) => addRehearseCommand(program.command('sandbox'), ctx));

interface Figures {
  overlapSeconds: number;
  maxGapSeconds: number;
  outside: { overlapSeconds: number; maxGapSeconds: number };
}

describe('uproot sandbox rehearse (over HTTP, virtual time)', () => {
  it('with leader migration: zero overlap, gaps within the lease bound, outside view agrees, ELBs kept', async () => {
    const io = recordingIo();
    const code = await runCli(['sandbox', 'rehearse', '--seed', '3', '-o', 'json'], io);
    expect(io.stderrText).toBe('');
    expect(code).toBe(0);
    const doc = JSON.parse(io.stdoutText) as {
      timings: Record<string, number>;
      gapBoundSeconds: number;
      controllers: Record<string, Figures>;
      agreement: { agrees: boolean };
      loadBalancers: { before: string; after: string; elbCount: number }[];
      strayActions: number;
      verdict: { promiseHolds: boolean };
    };
    expect(doc.timings).toEqual({
      leaseDurationSeconds: 15,
      renewDeadlineSeconds: 10,
      retryPeriodSeconds: 2,
    });
    expect(Object.keys(doc.controllers).sort()).toEqual(['cloud-node-lifecycle', 'route', 'service']);
    for (const [name, figures] of Object.entries(doc.controllers)) {
      expect(figures.overlapSeconds, name).toBe(0);
      expect(figures.maxGapSeconds, name).toBeGreaterThan(0);
      expect(figures.maxGapSeconds, name).toBeLessThanOrEqual(doc.gapBoundSeconds);
      expect(figures.outside.overlapSeconds, name).toBe(0);
    }
    expect(doc.agreement.agrees).toBe(true);
    expect(doc.loadBalancers).toHaveLength(2);
    for (const lb of doc.loadBalancers) expect(lb).toMatchObject({ after: lb.before, elbCount: 1 });
    expect(doc.strayActions).toBe(0);
    expect(doc.verdict.promiseHolds).toBe(true);
  });

  it('without leader migration the gap is visible, and the outside timeline still agrees', async () => {
    const report = await rehearseSandboxMigration({ leaderMigration: false, seed: 3 });
    const doc = rehearsalDocument(report) as {
      controllers: Record<string, Figures>;
      gapBoundSeconds: number;
      agreement: { agrees: boolean };
    };
    for (const [name, figures] of Object.entries(doc.controllers)) {
      expect(figures.overlapSeconds, name).toBe(0);
      // The cloud controllers stop with the last in-tree KCM and wait for the CCM: far past the lease bound.
      expect(figures.maxGapSeconds, name).toBeGreaterThan(2 * doc.gapBoundSeconds);
    }
    expect(doc.agreement.agrees).toBe(true);
    const text = renderRehearsalText(report);
    expect(text).toMatch(/^Rehearsal WITHOUT leader migration \(seed 3; lease 15s, renew 10s, retry 2s/);
    expect(text).toMatch(
      /Without leader migration the cloud controllers went unowned for up to \d+(\.\d+)?s\./,
    );
  });

  it('refuses bad timings with the elector\u2019s own rule, before starting anything', async () => {
    const io = recordingIo();
    expect(await runCli(['sandbox', 'rehearse', '--timings', '10,10,2'], io)).toBe(2);
    expect(io.stderrText).toContain('--timings 10,10,2: leaseDuration must be greater than renewDeadline');
    const io2 = recordingIo();
    expect(await runCli(['sandbox', 'rehearse', '--timings', '15,x'], io2)).toBe(2);
    expect(io2.stderrText).toContain('--timings must be three positive numbers of seconds');
    const io3 = recordingIo();
    expect(await runCli(['sandbox', 'rehearse', '--seed', 'abc'], io3)).toBe(2);
    expect(io3.stderrText).toContain('--seed must be a whole number');
  });
});
