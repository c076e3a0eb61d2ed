/**
 * File writes that are all or nothing: the content goes to a temporary file in the same directory, is
 * flushed to disk, then renamed over the target (rename is atomic on one filesystem). A crash leaves either
 * the old file or the new one, never half of either.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * `durable: false` skips the fsyncs (still atomic): for copies that can be rebuilt, written often (the local
 * journal mirror), where a flush per write would cost more than the write.
 */
export function writeFileAtomic(
  path: string,
  content: string,
  options: { mode?: number; durable?: boolean } = {},
): void {
  const durable = options.durable ?? true;
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const mode = options.mode ?? existingMode(path) ?? 0o644;
  const tmp = join(dir, `.${basename(path)}.uproot-tmp-${randomBytes(6).toString('hex')}`);
  try {
    const fd = openSync(tmp, 'w', mode);
    try {
      writeSync(fd, content);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  if (durable) syncDirectory(dir);
}

/** The file's content, or undefined when it does not exist. */
export function readFileIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function existingMode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
}

/** Makes the rename durable; not every platform can open a directory, which is fine. */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // best effort
  }
}
