/**
 * Fails when a package's sources import each other in a cycle (madge over the TypeScript import graph, type
 * imports included). Part of `npm run lint`, so CI keeps both packages at 0 cycles; the order inside
 * src/core that keeps it so is in docs/library.md ("Inside core").
 *
 *   npx tsx scripts/check-cycles.ts            both packages
 *   npx tsx scripts/check-cycles.ts <dir>...   the given source folders
 */
import { resolve } from 'node:path';
import madge from 'madge';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
export const CHECKED = ['packages/uproot/src', 'packages/sandbox/src'] as const;

/** The cycles among one folder's files (each a list of paths relative to it), and what madge could not read. */
export async function cyclesIn(
  dir: string,
): Promise<{ cycles: string[][]; skipped: string[]; files: number }> {
  const graph = await madge(resolve(ROOT, dir), {
    fileExtensions: ['ts'],
    tsConfig: resolve(ROOT, 'tsconfig.json'),
    excludeRegExp: [/(^|\/)dist\//],
  });
  // Another package's entry (the sandbox's `uproot/core`) is outside this graph; an unresolved path is not.
  const skipped = graph.warnings().skipped.filter((s) => s.startsWith('.') || s.startsWith('/'));
  return { cycles: graph.circular(), skipped, files: Object.keys(graph.obj()).length };
}

async function main(dirs: readonly string[]): Promise<number> {
  let failed = 0;
  for (const dir of dirs) {
    const { cycles, skipped, files } = await cyclesIn(dir);
    // A file madge could not resolve hides its imports: a cycle through it would go unseen.
    if (files === 0 || skipped.length > 0) {
      console.error(
        `${dir}: madge read ${files} files and could not resolve ${skipped.length}: ${skipped.join(', ')}`,
      );
      failed++;
      continue;
    }
    if (cycles.length === 0) {
      console.log(`${dir}: ${files} files, no import cycle`);
      continue;
    }
    failed++;
    console.error(`${dir}: ${cycles.length} import cycle(s) among ${files} files:`);
    for (const cycle of cycles) console.error(`  ${[...cycle, cycle[0]].join(' > ')}`);
  }
  if (failed > 0) {
    console.error(
      'Break a cycle by moving what both sides share down (in core: to src/core/model), not by importing upward.',
    );
  }
  return failed > 0 ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  process.exitCode = await main(args.length > 0 ? args : CHECKED);
}
