import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFileIfExists, writeFileAtomic } from './atomic-write.js';
import { sha256 } from '../../engine/appliers/definition-file.js';
import { backupTimestamp, writeWithBackup } from './backed-up-write.js';
import { JournalMirror, safeName } from './journal-mirror.js';
import { journalFor, plan, step } from '../../engine/testing/plan-fixtures.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'uproot-files-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('replaces content, keeps the mode, and leaves no temporary file', () => {
    const dir = tempDir();
    const path = join(dir, 'cluster.yml');
    writeFileSync(path, 'old', { mode: 0o600 });
    writeFileAtomic(path, 'new');
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['cluster.yml']);
    expect(readFileIfExists(join(dir, 'missing'))).toBeUndefined();
  });
});

describe('writeWithBackup', () => {
  it('keeps the previous version beside the file, named by step and time', () => {
    const dir = tempDir();
    const path = join(dir, 'cluster.yml');
    writeFileSync(path, '# my comment\ncloud_provider:\n  name: aws\n');
    const now = Date.UTC(2026, 2, 4, 5, 6, 7);
    const result = writeWithBackup(
      path,
      'cloud_provider:\n  name: external-aws\n',
      'switch-to-external',
      now,
    );
    expect(result).toEqual({
      changed: true,
      backupPath: join(dir, 'cluster.yml.uproot-switch-to-external-20260304T050607Z.bak'),
    });
    expect(readFileSync(result.backupPath!, 'utf8')).toContain('# my comment');
    expect(readFileSync(path, 'utf8')).toContain('external-aws');
    expect(backupTimestamp(now)).toBe('20260304T050607Z');
  });

  it('writes nothing when the content is already there', () => {
    const dir = tempDir();
    const path = join(dir, 'cluster.yml');
    writeFileSync(path, 'same');
    expect(writeWithBackup(path, 'same', 's', 0)).toEqual({ changed: false });
    expect(readdirSync(dir)).toEqual(['cluster.yml']);
  });
});

describe('JournalMirror', () => {
  it('round-trips the journal under .uproot/<cluster>/journal.json with private permissions', () => {
    const dir = tempDir();
    const mirror = new JournalMirror(dir, 'prod/east');
    const journal = journalFor(plan([step('cordon-control-plane', [])]));
    mirror.write(journal);
    expect(mirror.path).toBe(join(dir, 'prod_east', 'journal.json'));
    expect(statSync(mirror.path).mode & 0o777).toBe(0o600);
    expect(mirror.read()).toEqual(journal);
    expect(safeName('..')).toBe('_');
    expect(sha256('a')).toHaveLength(64);
  });

  it('names the file when the copy is corrupt', () => {
    const dir = tempDir();
    const mirror = new JournalMirror(dir, 'c');
    writeFileAtomic(mirror.path, '{not json');
    expect(() => mirror.read()).toThrow(/local journal copy .*journal.json is unreadable/);
  });
});
