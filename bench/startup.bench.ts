/**
 * Start-up: wall time and resident memory (max RSS) of `uproot --version` and `uproot plan --example rke2`,
 * the npm CLI (node dist/cli/main.js) on the machine's Node.js and on each pinned line (scripts/node-lines.ts)
 * next to `node -e 0` on that line, and the single executable (dist/bin/kubectl-uproot-linux-x64, which
 * embeds its own Node.js). Each figure is the median (and the fastest) of RUNS runs after one warm-up run;
 * max RSS comes from GNU time (/usr/bin/time), null where it is missing. Builds dist/ and the binary first
 * when they are missing.
 *
 *   npm run bench startup
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { binaryPath } from '../scripts/build-binary.js';
import { BINARY_LINE, NODE_LINES, nodeBinDir } from '../scripts/node-lines.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'packages/uproot/dist/cli/main.js');
const RUNS = Number(process.env.UPROOT_BENCH_RUNS ?? 10);
const GNU_TIME = '/usr/bin/time';

interface Figure {
  wallMs: { median: number; min: number };
  maxRssMiB: number | null;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

function measure(command: readonly string[], work: string): Figure {
  const [file, ...args] = command as [string, ...string[]];
  const rssFile = join(work, 'rss');
  const timed = existsSync(GNU_TIME);
  const walls: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const started = performance.now();
    const result = timed
      ? spawnSync(GNU_TIME, ['-f', '%M', '-o', rssFile, file, ...args], { cwd: work, stdio: 'ignore' })
      : spawnSync(file, args, { cwd: work, stdio: 'ignore' });
    const wall = performance.now() - started;
    if (result.status !== 0) throw new Error(`${command.join(' ')} exited ${result.status}`);
    if (i === 0) continue; // warm-up: page cache, the binary's assets written once
    walls.push(wall);
    if (timed) rss.push(Number(readFileSync(rssFile, 'utf8').trim()) / 1024);
  }
  return {
    wallMs: { median: round(median(walls)), min: round(Math.min(...walls)) },
    maxRssMiB: rss.length ? round(median(rss)) : null,
  };
}

function cliFigures(node: string, work: string): Record<string, Figure> {
  return {
    'node -e 0': measure([node, '-e', '0'], work),
    'uproot --version': measure([node, CLI, '--version'], work),
    'uproot plan --example rke2': measure([node, CLI, 'plan', '--example', 'rke2'], work),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  if (!existsSync(CLI)) execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  const binary = binaryPath('x64');
  if (!existsSync(binary)) {
    execFileSync('npx', ['tsx', 'scripts/build-binary.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  const work = mkdtempSync(join(tmpdir(), 'uproot-startup-'));
  try {
    const lines: Record<string, Record<string, Figure>> = {};
    lines[`${process.version} (machine)`] = cliFigures(process.execPath, work);
    for (const major of Object.keys(NODE_LINES).map(Number)) {
      const node = join(nodeBinDir(major), 'node');
      const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
      lines[version] = cliFigures(node, work);
    }
    return {
      runs: RUNS,
      cpus: 'shared (figures move with the machine’s load; compare within one run)',
      npmCli: lines,
      binary: {
        file: 'dist/bin/kubectl-uproot-linux-x64',
        embeds: `v${NODE_LINES[BINARY_LINE]!.version}`,
        sizeMiB: round(statSync(binary).size / 2 ** 20),
        builtAt: statSync(binary).mtime.toISOString(),
        'kubectl-uproot --version': measure([binary, '--version'], work),
        'kubectl-uproot plan --example rke2': measure([binary, 'plan', '--example', 'rke2'], work),
      },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
