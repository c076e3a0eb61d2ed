import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ec2Instances } from '../../../packages/uproot/src/adapters/aws/instance-reader.js';
import { runDemo } from '../../../packages/sandbox/src/demo/run-demo.js';

describe('uproot demo on the RKE twin', () => {
  it('rke-intree: migrates through cluster.yml edits and the twin’s rke up, does the manual CCM install, verify passes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-demo-rke-'));
    const progress: string[] = [];
    try {
      const result = await runDemo(
        { scenario: 'rke-intree', timeScale: 1, dir: join(dir, 'twin') },
        { cwd: dir, env: { PATH: process.env.PATH }, interactive: false },
        { instances: ec2Instances, virtualTime: true, onProgress: (l) => progress.push(l) },
      );
      expect(result.scenario).toBe('rke-intree');
      const outcome = result.migration.outcome;
      const waiting =
        outcome.type === 'ran' && outcome.result.type === 'waiting-for-person'
          ? `${outcome.result.step}: ${outcome.result.instructions}`
          : '';
      expect(outcome.type === 'ran' && outcome.result.type, `${progress.join('\n')}\n${waiting}`).toBe(
        'completed',
      );
      expect(
        progress.some((l) => /install-ccm needs a person; the demo does it: helm upgrade --install/.test(l)),
      ).toBe(true);
      // The person's two helm runs: the install with leader migration, then the values without it.
      expect(progress.filter((l) => /needs a person/.test(l)).map((l) => l.split(' ')[1])).toEqual([
        'install-ccm',
        'disable-leader-migration',
      ]);
      const ccm = result.verify.checks.find((c) => c.id === 'ccm-running');
      expect(ccm?.status).toBe('pass');
      expect(ccm?.detail).not.toMatch(/leader migration still enabled/);
      expect(result.verify.checks.filter((c) => c.status === 'fail')).toEqual([]);
      expect(result.exitCode).toBe(0);
      for (const c of Object.values(result.ledger.controllers)) expect(c.overlapSeconds ?? 0).toBe(0);
      expect(result.report).toBeDefined();
      expect(readFileSync(result.report!.markdown, 'utf8')).toContain('| switch-to-external');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
