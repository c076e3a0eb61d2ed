/**
 * Replaces a user's file while keeping the previous version beside it: `<file>.uproot-<step>-<timestamp>.bak`,
 * written (atomically) before the file itself is replaced (atomically). Nothing is written when the content
 * is unchanged.
 */
import { basename, dirname, join } from 'node:path';
import type { BackedUpWrite, FileStore } from '../../engine/ports.js';
import { readFileIfExists, writeFileAtomic } from './atomic-write.js';

export type { BackedUpWrite };

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

/** The engine's FileStore on the local filesystem. */
export const localFiles: FileStore = {
  read: readFileIfExists,
  writeAtomic: (path, content) => writeFileAtomic(path, content),
  writeWithBackup,
};
