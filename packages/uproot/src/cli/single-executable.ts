/**
 * uproot as one file (`npm run build:binary`, scripts/build-binary.ts): a Node.js single executable
 * application whose main script is the CLI bundled as CommonJS, with the package's shipped files
 * (scenarios/, examples/) as its assets.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Sea from 'node:sea';
import { AccessError, InternalError } from '../errors/index.js';

/** The asset listing the shipped files; written by scripts/build-binary.ts. */
export const ASSET_MANIFEST = 'uproot-assets.json';

export interface AssetManifest {
  /** A hash of every file's path and content: the folder they are written to is named after it. */
  readonly id: string;
  /** Paths relative to the package, each also the key of an asset. */
  readonly files: readonly string[];
}

function sea(): typeof Sea | undefined {
  // No import: `node:sea` needs Node 20.12, and the npm CLI should not pay for it on every start.
  return process.getBuiltinModule?.('node:sea') as typeof Sea | undefined;
}

/** True in the single executable; false when Node.js runs the CLI from dist/ (the npm package). */
export function isSingleExecutable(): boolean {
  return sea()?.isSea() ?? false;
}

let root: string | undefined;

/**
 * What `import.meta.url` of the bundled module at `path` (relative to the package, e.g.
 * `src/cli/commands/plan.ts`) stands for in the single executable, where modules have no file of their own:
 * the same path under a folder holding the shipped files, written once per build from the executable's
 * assets into the user's cache. The build puts this call in place of every `import.meta.url`.
 */
export function bundledModuleUrl(path: string): string {
  root ??= materializeAssets();
  return pathToFileURL(join(root, path)).href;
}

function materializeAssets(): string {
  const api = sea();
  if (!api?.isSea()) throw new InternalError('bundledModuleUrl is only called in the single executable');
  const text = api.getAsset(ASSET_MANIFEST, 'utf8');
  const manifest = JSON.parse(text) as AssetManifest;
  const places = [
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'uproot'),
    join(tmpdir(), `uproot-${process.getuid?.() ?? 'user'}`),
  ];
  for (const parent of places) {
    const dir = join(parent, `assets-${manifest.id}`);
    if (existsSync(join(dir, ASSET_MANIFEST))) return dir;
    try {
      mkdirSync(parent, { recursive: true });
      // Written beside, then renamed into place: a concurrent start never sees half the files.
      const work = mkdtempSync(join(parent, '.assets-'));
      for (const file of manifest.files) {
        mkdirSync(dirname(join(work, file)), { recursive: true });
        writeFileSync(join(work, file), new Uint8Array(api.getAsset(file)));
      }
      writeFileSync(join(work, ASSET_MANIFEST), text);
      try {
        renameSync(work, dir);
      } catch {
        rmSync(work, { recursive: true, force: true }); // another process won the race
      }
      if (existsSync(join(dir, ASSET_MANIFEST))) return dir;
    } catch {
      // Not writable (a read-only home): the next place.
    }
  }
  throw new AccessError(
    'UP-BINARY-ASSETS',
    `cannot write uproot's scenarios and examples to ${places.join(' or ')}`,
    {
      hint: 'set XDG_CACHE_HOME to a writable folder',
    },
  );
}
