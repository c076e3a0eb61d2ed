/**
 * What the library shape costs at start-up: `uproot --version`, `uproot plan --example rke2`, `uproot demo --help` and the library
 * entry (`import('uproot')`), each against `node -e 0`: wall time (median of a few runs) and how many modules
 * Node loaded (ESM through a load hook, CommonJS through the require cache, node: builtins not counted), all
 * of them, uproot's own (dist/) and the sandbox's (any path with /sandbox/ in it: the sandbox package, or src/sandbox
 * in a tree from before it was one).
 *
 *   npx tsx bench/run.ts library
 *   UPROOT_BENCH_ROOT=/path/to/another/build npx tsx bench/run.ts library   # the same figures for another tree
 *
 * UPROOT_BENCH_ROOT is a package root with a built dist/ (default this repository's packages/uproot), so a tree before a change
 * can be measured side by side with the same script.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = process.env.UPROOT_BENCH_ROOT ?? new URL('../packages/uproot', import.meta.url).pathname;
const RUNS = Number(process.env.UPROOT_BENCH_RUNS ?? 5);

/** A preload that records every module URL Node loads, for counting. */
function writeCounter(dir: string, log: string): string {
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (!url.startsWith('node:')) appendFileSync(${JSON.stringify(log)}, url + '\\n');
  return next(url, context);
}
`,
  );
  const preload = join(dir, 'preload.mjs');
  writeFileSync(
    preload,
    `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
register(${JSON.stringify(pathToFileURL(hooks).href)});
const require = createRequire(import.meta.url);
process.on('exit', () => {
  const cjs = Object.keys(require.cache).map((f) => pathToFileURL(f).href);
  if (cjs.length > 0) appendFileSync(${JSON.stringify(log)}, cjs.join('\\n') + '\\n');
});
`,
  );
  return preload;
}

function modulesLoaded(
  args: readonly string[],
  dir: string,
): { modules: number; uprootModules: number; sandboxModules: number } {
  const log = join(dir, `modules-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  const preload = writeCounter(dir, log);
  execFileSync(process.execPath, ['--import', pathToFileURL(preload).href, ...args], {
    cwd: dir,
    stdio: 'ignore',
  });
  const urls = new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean));
  // The counter's own two files are not the program's.
  const loaded = [...urls].filter((u) => !u.endsWith('/hooks.mjs') && !u.endsWith('/preload.mjs'));
  const own = pathToFileURL(join(ROOT, 'dist')).href;
  return {
    modules: loaded.length,
    uprootModules: loaded.filter((u) => u.startsWith(own)).length,
    sandboxModules: loaded.filter((u) => u.includes('/sandbox/')).length,
  };
}

function wallMs(args: readonly string[], dir: string): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    execFileSync(process.execPath, args, { cwd: dir, stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]!);
}

export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-bench-library-'));
  const cli = join(ROOT, 'dist', 'cli', 'main.js');
  const entry = pathToFileURL(join(ROOT, 'dist', 'index.js')).href;
  const cases: Record<string, readonly string[]> = {
    'node -e 0': ['-e', '0'],
    'uproot --version': [cli, '--version'],
    'uproot plan --example rke2': [cli, 'plan', '--example', 'rke2'],
    // The one command family that loads the sandbox.
    'uproot demo --help': [cli, 'demo', '--help'],
    "import('uproot')": ['--input-type=module', '-e', `await import(${JSON.stringify(entry)})`],
  };
  try {
    const figures: Record<string, { wallMs: number } & ReturnType<typeof modulesLoaded>> = {};
    for (const [name, args] of Object.entries(cases)) {
      try {
        figures[name] = { wallMs: wallMs(args, dir), ...modulesLoaded(args, dir) };
      } catch {
        // A tree without dist/index.js (before the library entry existed) has no such case.
      }
    }
    return { root: ROOT, runs: RUNS, figures };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
