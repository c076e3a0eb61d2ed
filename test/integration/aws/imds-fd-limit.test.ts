import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../twin/support.js';

/**
 * Each instance's metadata endpoint holds a file descriptor. When the process runs out, opening one more
 * fails with a typed error that says so and what to do, and the emulator still closes cleanly.
 */
describe('instance metadata endpoints under a file descriptor limit', () => {
  it('stops with UP-AWS-IMDS-ENDPOINT naming the limit, not with a crash', async () => {
    const script = resolve(import.meta.dirname, 'fixtures/open-many-endpoints.ts');
    // The limit leaves room for loading the module graph (the loader opens files in parallel; at 120 a large
    // graph sometimes failed to load before the first endpoint opened) and is still reached well before 1,500.
    const root = resolve(import.meta.dirname, '../../..');
    const out = await run(
      'sh',
      ['-c', `ulimit -n 512 && exec "${process.execPath}" --import tsx "${script}" 1500`],
      {
        cwd: root,
      },
    );
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout.trim().split('\n').at(-1)!) as {
      opened: number;
      error?: { code: string; message: string; hint?: string };
    };
    expect(result.opened).toBeGreaterThan(10);
    expect(result.opened).toBeLessThan(512);
    expect(result.error).toMatchObject({
      code: 'UP-AWS-IMDS-ENDPOINT',
      message: expect.stringContaining('no file descriptor is left for another listener (EMFILE)'),
      hint: expect.stringContaining('ulimit -n'),
    });
  });
});
