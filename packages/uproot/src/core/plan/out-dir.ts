/**
 * Deciding what `plan --out DIR` may write, without touching the disk: the CLI lists DIR, asks here, and
 * only then writes. A directory is ours when it holds uproot's manifest; files uproot did not write are
 * never overwritten, and files it wrote are backed up before they are replaced.
 */
import { InputError, InternalError } from '../../errors/index.js';

export const OUT_MANIFEST = '.uproot-plan.json';
export const BACKUP_DIR = '.uproot-backup';

export interface OutFile {
  readonly path: string;
  readonly content: string;
}

export interface OutDirListing {
  readonly exists: boolean;
  /** Every file under DIR, relative, with forward slashes. */
  readonly files: readonly string[];
  /** The contents of DIR/.uproot-plan.json, when present. */
  readonly manifest?: string;
}

export interface OutDirPlan {
  /** Copy each `from` to `to` (both relative to DIR) before writing. */
  readonly backups: readonly { from: string; to: string }[];
  readonly writes: readonly OutFile[];
}

interface Manifest {
  readonly generator: string;
  readonly files: readonly string[];
}

function parseManifest(dir: string, text: string): Manifest {
  try {
    const value = JSON.parse(text) as Partial<Manifest>;
    if (
      value.generator === 'uproot plan' &&
      Array.isArray(value.files) &&
      value.files.every((f) => typeof f === 'string')
    )
      return value as Manifest;
  } catch {
    // fall through
  }
  throw new InputError('UP-PLAN-OUT-MANIFEST', `${dir}/${OUT_MANIFEST} is not an uproot plan manifest`, {
    location: { file: `${dir}/${OUT_MANIFEST}` },
    hint: 'choose an empty or new directory for --out',
  });
}

export function planOutDir(dir: string, listing: OutDirListing, files: readonly OutFile[]): OutDirPlan {
  for (const file of files) {
    if (file.path.startsWith('/') || file.path.split('/').includes('..')) {
      throw new InternalError(`artifact path ${file.path} leaves the output directory`);
    }
  }
  const manifestFiles = [...new Set([...files.map((f) => f.path)])].sort();
  const manifest: OutFile = {
    path: OUT_MANIFEST,
    content: `${JSON.stringify({ generator: 'uproot plan', files: manifestFiles }, null, 2)}\n`,
  };
  if (!listing.exists || listing.files.length === 0) return { backups: [], writes: [...files, manifest] };
  if (listing.manifest === undefined) {
    throw new InputError('UP-PLAN-OUT-NOT-EMPTY', `${dir} is not empty and was not written by uproot plan`, {
      location: { file: dir, value: listing.files.slice(0, 3).join(', ') },
      hint: 'choose an empty or new directory for --out (uproot never overwrites files it did not write)',
    });
  }
  const previous = parseManifest(dir, listing.manifest);
  const existing = new Set(listing.files);
  const foreign = files.filter((f) => existing.has(f.path) && !previous.files.includes(f.path));
  if (foreign.length > 0) {
    throw new InputError(
      'UP-PLAN-OUT-FOREIGN-FILE',
      `${dir}/${foreign[0]!.path} exists and was not written by uproot`,
      {
        location: { file: `${dir}/${foreign[0]!.path}` },
        hint: 'move that file away or choose another directory for --out',
      },
    );
  }
  const used = listing.files
    .map((f) => new RegExp(`^${BACKUP_DIR}/(\\d+)/`).exec(f)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
  const slot = `${BACKUP_DIR}/${Math.max(0, ...used) + 1}`;
  const replaced = [...files.map((f) => f.path), OUT_MANIFEST].filter((p) => existing.has(p));
  const merged: OutFile = {
    path: OUT_MANIFEST,
    content: `${JSON.stringify({ generator: 'uproot plan', files: [...new Set([...previous.files, ...manifestFiles])].sort() }, null, 2)}\n`,
  };
  return { backups: replaced.map((p) => ({ from: p, to: `${slot}/${p}` })), writes: [...files, merged] };
}
