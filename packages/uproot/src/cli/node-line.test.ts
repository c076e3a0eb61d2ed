import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dailyEndOfLifeNotice, endOfLifeNotice, maintainedLines } from './node-line.js';

const NOV_2026 = new Date('2026-11-26T12:00:00Z');

describe('Node.js lines', () => {
  it('knows the maintained LTS lines on a date', () => {
    expect(maintainedLines(NOV_2026)).toEqual([22, 24, 26]);
    expect(maintainedLines(new Date('2026-04-29T00:00:00Z'))).toEqual([20, 22, 24]);
    expect(maintainedLines(new Date('2027-05-01T00:00:00Z'))).toEqual([24, 26]);
  });

  it('says in one line that an end-of-life line gets no fixes and which lines to use', () => {
    const notice = endOfLifeNotice('v20.20.2', NOV_2026);
    expect(notice).toBe(
      'uproot: Node.js v20.20.2 reached end of life on 2026-04-30 and gets no security fixes; uproot still ' +
        'runs on it, but use Node.js 22, 24 or 26 (or the kubectl-uproot binary)',
    );
    expect(endOfLifeNotice('v25.9.0', NOV_2026)).toMatch(/v25\.9\.0 reached end of life on 2026-06-01/);
    expect(endOfLifeNotice('v16.20.2', NOV_2026)).toMatch(/v16\.20\.2 is past its end of life/);
  });

  it('says nothing on a maintained line, or one newer than it knows', () => {
    for (const v of ['v22.23.3', 'v24.21.0', 'v26.10.0', 'v27.0.0-pre', 'v28.1.0'])
      expect(endOfLifeNotice(v, NOV_2026), v).toBeUndefined();
    expect(endOfLifeNotice('v20.20.2', new Date('2026-04-29T23:00:00Z'))).toBeUndefined();
  });

  it('follows the schedule: Node 22 gets the notice after its end of life', () => {
    expect(endOfLifeNotice('v22.23.3', new Date('2027-04-30T00:00:00Z'))).toMatch(
      /reached end of life on 2027-04-30 .* use Node\.js 24 or 26 /,
    );
  });

  it('shows the notice once a day, and every time when its state file cannot be written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-node-line-'));
    try {
      const env = { XDG_CACHE_HOME: join(dir, 'cache') };
      expect(dailyEndOfLifeNotice('v20.20.2', NOV_2026, env)).toMatch(/end of life/);
      expect(dailyEndOfLifeNotice('v20.20.2', new Date('2026-11-26T23:59:00Z'), env)).toBeUndefined();
      expect(dailyEndOfLifeNotice('v20.20.2', new Date('2026-11-27T00:01:00Z'), env)).toMatch(/end of life/);
      expect(dailyEndOfLifeNotice('v24.1.0', NOV_2026, env)).toBeUndefined();
      // A cache "folder" that is a file: nothing can be kept, so the notice shows, and nothing throws.
      writeFileSync(join(dir, 'file'), '');
      const broken = { XDG_CACHE_HOME: join(dir, 'file') };
      expect(dailyEndOfLifeNotice('v20.20.2', NOV_2026, broken)).toMatch(/end of life/);
      expect(dailyEndOfLifeNotice('v20.20.2', NOV_2026, broken)).toMatch(/end of life/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
