import { describe, expect, it } from 'vitest';
import { UprootError } from '../../errors/index.js';
import { OUT_MANIFEST, planOutDir } from './out-dir.js';

const files = [
  { path: 'RUNBOOK.md', content: '# r' },
  { path: 'steps/01-x/cluster.yaml', content: 'a: 1' },
];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return UprootError.is(error) ? error.code : 'not an UprootError';
  }
  return undefined;
}

describe('planOutDir', () => {
  it('writes everything plus a manifest into a new or empty directory', () => {
    const plan = planOutDir('out', { exists: false, files: [] }, files);
    expect(plan.backups).toEqual([]);
    expect(plan.writes.map((w) => w.path)).toEqual(['RUNBOOK.md', 'steps/01-x/cluster.yaml', OUT_MANIFEST]);
    expect(JSON.parse(plan.writes[2]!.content)).toEqual({
      generator: 'uproot plan',
      files: ['RUNBOOK.md', 'steps/01-x/cluster.yaml'],
    });
  });

  it('refuses a non-empty directory that uproot did not write', () => {
    expect(codeOf(() => planOutDir('out', { exists: true, files: ['notes.txt'] }, files))).toBe(
      'UP-PLAN-OUT-NOT-EMPTY',
    );
  });

  it('backs up the files it wrote before and never touches a user\u2019s file', () => {
    const manifest = JSON.stringify({ generator: 'uproot plan', files: ['RUNBOOK.md', 'old.yaml'] });
    const listing = {
      exists: true,
      files: ['RUNBOOK.md', 'old.yaml', 'mine.txt', OUT_MANIFEST, '.uproot-backup/1/RUNBOOK.md'],
      manifest,
    };
    const plan = planOutDir('out', listing, files);
    expect(plan.backups).toEqual([
      { from: 'RUNBOOK.md', to: '.uproot-backup/2/RUNBOOK.md' },
      { from: OUT_MANIFEST, to: `.uproot-backup/2/${OUT_MANIFEST}` },
    ]);
    expect(plan.writes.map((w) => w.path)).not.toContain('mine.txt');
    expect(JSON.parse(plan.writes.at(-1)!.content).files).toEqual([
      'RUNBOOK.md',
      'old.yaml',
      'steps/01-x/cluster.yaml',
    ]);
    const clash = { ...listing, files: [...listing.files, 'steps/01-x/cluster.yaml'] };
    expect(codeOf(() => planOutDir('out', clash, files))).toBe('UP-PLAN-OUT-FOREIGN-FILE');
    expect(codeOf(() => planOutDir('out', { ...listing, manifest: '{' }, files))).toBe(
      'UP-PLAN-OUT-MANIFEST',
    );
  });
});
