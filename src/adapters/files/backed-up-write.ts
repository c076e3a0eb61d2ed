/**
 * Replaces a user's file while keeping the previous version beside it: `<file>.uproot-<step>-<timestamp>.bak`,
 * written (atomically) before the file itself is replaced (atomically). Nothing is written when the content
 * is unchanged.
 */
import { basename, dirname, join } from 'node:path';
import { readFileIfExists, writeFileAtomic } from './atomic-write.js';

export interface BackedUpWrite {
  readonly changed: boolean;
  /** Where the previous version was kept (undefined when nothing changed or the file did not exist). */
  readonly backupPath?: string;
}

/** 2026-01-01T00:00:00.000Z → 20260101T000000Z */
export function backupTimestamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export function backupPathFor(path: string, label: string, now: number): string {
  return join(dirname(path), `${basename(path)}.uproot-${label}-${backupTimestamp(now)}.bak`);
}

export function writeWithBackup(path: string, content: string, label: string, now: number): BackedUpWrite {
  const previous = readFileIfExists(path);
  if (previous === content) return { changed: false };
  let backupPath: string | undefined;
  if (previous !== undefined) {
    backupPath = backupPathFor(path, label, now);
    writeFileAtomic(backupPath, previous);
  }
  writeFileAtomic(path, content);
  return { changed: true, ...(backupPath ? { backupPath } : {}) };
}
