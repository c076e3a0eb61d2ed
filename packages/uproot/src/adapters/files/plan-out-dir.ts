/**
 * `uproot plan --out DIR`: writes every artifact of a plan and plan.json for review. The directory is checked
 * first (core/plan/out-dir.ts decides, refusing to clobber anything uproot did not write); what it replaces
 * is backed up beside; nothing is written unless the whole plan succeeded.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { OUT_MANIFEST, planOutDir, type OutDirListing, type OutFile } from '../../core/plan/out-dir.js';
import type { MigrationPlan } from '../../core/model/plan-types.js';
import { InputError } from '../../errors/index.js';

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(relative(root, full).split('\\').join('/'));
    }
  };
  walk(root);
  return out;
}

/** Writes the plan's files to `dir` (shown as `shown` in messages); returns how many were written. */
export function writePlanOutDir(dir: string, shown: string, plan: MigrationPlan): number {
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new InputError('UP-PLAN-OUT-NOT-DIR', `${shown} exists and is not a directory`, {
      location: { file: shown },
      hint: 'give a new or empty directory to --out',
    });
  }
  const exists = existsSync(dir);
  const files = exists ? listFiles(dir) : [];
  const manifestPath = join(dir, OUT_MANIFEST);
  const listing: OutDirListing = {
    exists,
    files,
    ...(files.includes(OUT_MANIFEST) ? { manifest: readFileSync(manifestPath, 'utf8') } : {}),
  };
  const outFiles: OutFile[] = [
    ...plan.artifacts.map((a) => ({ path: a.path, content: a.content })),
    { path: 'plan.json', content: `${JSON.stringify(plan, null, 2)}\n` },
  ];
  const decision = planOutDir(shown, listing, outFiles);
  for (const backup of decision.backups) {
    const to = join(dir, backup.to);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(dir, backup.from), to);
  }
  for (const file of decision.writes) {
    const to = join(dir, file.path);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, file.content, { mode: 0o644 });
  }
  return decision.writes.length;
}
