/**
 * The published packages as a user gets them: `npm pack` the built uproot package, install the tarball into a new project
 * (from the npm cache `npm ci` filled where it can), and use it by its public entry points only — `import { plan }
 * from 'uproot'` on a shipped example, `uproot/core`, `uproot/election`, and TypeScript's view of the same through the
 * `exports` types. Then the sandbox, a package of its own: without it `uproot demo` says how to get it; with its
 * tarball installed next to uproot, the demo runs. Needs dist/ built (`npm test` builds first).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plan as planInRepo } from '../../../packages/uproot/src/toolkit/plan.js';

const REPO = new URL('../../../', import.meta.url).pathname;
const UPROOT_PACKAGE = join(REPO, 'packages', 'uproot');
const SANDBOX_PACKAGE = join(REPO, 'packages', 'sandbox');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let project: string;
let tarball: string;
let packed: string[];

/** Packs a workspace package into the project folder: its tarball and the files in it. */
function pack(dir: string): { tarball: string; files: string[] } {
  // --ignore-scripts: pack the dist/ this test run built (prepack's clean rebuild would pull it from under
  // the other test files running in parallel).
  const out = execFileSync(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', project], {
    cwd: dir,
    encoding: 'utf8',
  });
  const info = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(project, info[0]!.filename), files: info[0]!.files.map((f) => f.path) };
}

function install(...tarballs: string[]): void {
  execFileSync(
    npm,
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs],
    {
      cwd: project,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

function node(script: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: project,
    encoding: 'utf8',
  });
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'uproot-library-'));
  ({ tarball, files: packed } = pack(UPROOT_PACKAGE));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'uses-uproot', private: true, type: 'module' }),
  );
  install(tarball);
}, 300_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the packed uproot package', () => {
  it('ships the built library and CLI and the examples; no sandbox, build state, test fixtures or source maps', () => {
    expect(packed).toContain('dist/index.js');
    expect(packed).toContain('dist/index.d.ts');
    expect(packed).toContain('dist/election/index.js');
    expect(packed).toContain('dist/cli/main.js');
    expect(packed).toContain('bin/uproot.js');
    expect(packed).toContain('examples/rke2-cluster.yaml');
    // The twins, their scenarios and the demo are @uproot/sandbox's.
    const sandboxFiles = (p: string) => /^(scenarios\/|dist\/(twin|apiserver|demo)\/)/.test(p);
    expect(packed.filter(sandboxFiles)).toEqual([]);
    expect(packed.filter((p) => p.startsWith('src/'))).toEqual([]);
    expect(packed.filter((p) => p.endsWith('.tsbuildinfo'))).toEqual([]);
    expect(packed.filter((p) => /fixtures|test-support|\/testing\//.test(p))).toEqual([]);
    expect(packed.filter((p) => p.endsWith('.map'))).toEqual([]);
  });

  it("plans a shipped example through `import { plan } from 'uproot'`, as the repository does", async () => {
    const example = join(project, 'node_modules', 'uproot', 'examples', 'rke2-cluster.yaml');
    expect(existsSync(example)).toBe(true);
    const printed = node(
      `import { plan } from 'uproot';
       const { plan: p } = await plan({ clusterFile: ${JSON.stringify(example)} });
       process.stdout.write(JSON.stringify(p));`,
    );
    const installed = JSON.parse(printed) as { distro: string; steps: { id: string }[] };
    const { plan: expected } = await planInRepo({ clusterFile: example });
    expect(installed.distro).toBe('rke2');
    expect(installed).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it('answers bad input with a typed error carrying its code and exit code', () => {
    const printed = node(
      `import { plan, UprootError } from 'uproot';
       try { await plan({ clusterFile: 'no-such-cluster.yaml' }); }
       catch (e) { process.stdout.write(JSON.stringify({ is: UprootError.is(e), code: e.code, exit: e.exitCode })); }`,
    );
    expect(JSON.parse(printed)).toEqual({ is: true, code: 'UP-CLUSTER-FILE-UNREADABLE', exit: 2 });
  });

  it('keeps uproot/election to the elector, the lease lock and the runtime; testing tools apart; no deep imports', () => {
    const printed = node(
      `const election = await import('uproot/election');
       const testing = await import('uproot/election/testing');
       let deep = 'allowed';
       try { await import('uproot/dist/engine/ports.js'); } catch (e) { deep = e.code; }
       process.stdout.write(JSON.stringify({
         election: Object.keys(election).sort(),
         testing: Object.keys(testing).sort(),
         deep,
       }));`,
    );
    const { election, testing, deep } = JSON.parse(printed) as Record<string, string[] | string>;
    expect(election).toEqual(
      expect.arrayContaining(['LeaderElector', 'KubeLeaseLock', 'runControllerManager']),
    );
    expect(election).not.toEqual(expect.arrayContaining(['MemoryLeaseStore']));
    expect(election).not.toContain('rehearseMigration');
    expect(election).not.toContain('SkewedClock');
    expect(testing).toEqual(expect.arrayContaining(['MemoryLeaseStore', 'SkewedClock', 'watchLeases']));
    // The rehearsal judges ownership with uproot's core, so it is the sandbox's, not election's.
    expect(testing).not.toContain('rehearseMigration');
    expect(deep).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('offers the pure domain knowledge as uproot/core, the same functions the library judges with', () => {
    const printed = node(
      `import { parseKubernetesVersion, defaultLeaderMigrationConfiguration, pinnedCcmRelease, analyzeLedger } from 'uproot/core';
       const v = parseKubernetesVersion('v1.27.3+rke2r1');
       const ledger = analyzeLedger(
         [{ controller: 'service', component: 'kube-controller-manager', identity: 'a', time: 0, action: 'started' }],
         { window: { from: 0, to: 1000 } },
       );
       process.stdout.write(JSON.stringify({
         config: defaultLeaderMigrationConfiguration(v),
         ccm: pinnedCcmRelease(v).raw,
         gaps: ledger.controllers.service.gaps,
       }));`,
    );
    const core = JSON.parse(printed) as { config: { leaderName: string }; ccm: string; gaps: unknown[] };
    expect(core.config.leaderName).toBe('cloud-provider-extraction-migration');
    expect(core.ccm).toMatch(/^v1\.27\./);
    expect(core.gaps).toEqual([]);
  });

  it('type-checks a TypeScript user of the package through its exports', () => {
    writeFileSync(
      join(project, 'use.ts'),
      `import { plan, type MigrationPlan, type PlanOptions, UprootError } from 'uproot';
import { LeaderElector, type LeaseLock } from 'uproot/election';
import { parseKubernetesVersion, type KubernetesVersion } from 'uproot/core';
export const version: KubernetesVersion = parseKubernetesVersion('1.27');
const options: PlanOptions = { example: 'rke2' };
export async function steps(): Promise<number> {
  const { plan: p }: { plan: MigrationPlan } = await plan(options);
  return p.steps.length;
}
export const isError = (e: unknown): boolean => UprootError.is(e);
export type Elector = LeaderElector;
export type Lock = LeaseLock;
`,
    );
    // A misuse must fail: the types are really there, not `any`.
    writeFileSync(
      join(project, 'misuse.ts'),
      `import { plan } from 'uproot';\nexport const p = plan({ clusterFile: 42 });\n`,
    );
    const tsc = (file: string) =>
      execFileSync(
        process.execPath,
        [
          join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'),
          '--noEmit',
          '--strict',
          // client-node's own typings need @types/ws, which a user adds or skips; ours are checked by use.ts.
          '--skipLibCheck',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2023',
          '--types',
          'node',
          '--typeRoots',
          join(REPO, 'node_modules', '@types'),
          file,
        ],
        { cwd: project, encoding: 'utf8' },
      );
    tsc('use.ts');
    let misuse = '';
    try {
      tsc('misuse.ts');
    } catch (error) {
      misuse = String((error as { stdout?: string }).stdout); // tsc reports on stdout
    }
    expect(misuse).toMatch(/misuse\.ts\(2,\d+\): error TS2322/);
  });
});

describe('the sandbox, a package of its own', () => {
  const uproot = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [join(project, 'node_modules', 'uproot', 'dist', 'cli', 'main.js'), ...args],
      {
        cwd: project,
        encoding: 'utf8',
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      },
    );

  it('installs the `uproot` command, which runs without the sandbox', () => {
    const bin = join(project, 'node_modules', '.bin', 'uproot');
    const version = execFileSync(bin, ['--version'], {
      cwd: project,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    expect(version.trim()).toBe(
      JSON.parse(readFileSync(join(UPROOT_PACKAGE, 'package.json'), 'utf8')).version,
    );
  });

  it('is not in uproot: `uproot demo` says how to get it, exits 2 and writes nothing', () => {
    const run = uproot('demo', '--dir', join(project, 'no-demo'));
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/UP-SANDBOX-NOT-INSTALLED/);
    expect(run.stderr).toMatch(/npm install @uproot\/sandbox/);
    expect(existsSync(join(project, 'no-demo'))).toBe(false);
  });

  it('installed next to uproot from its own tarball, runs the demo through uproot\u2019s CLI', () => {
    const sandbox = pack(SANDBOX_PACKAGE);
    expect(sandbox.files).toContain('dist/cli/index.js');
    expect(sandbox.files.some((p) => p.startsWith('scenarios/'))).toBe(true);
    expect(sandbox.files.filter((p) => p.startsWith('src/') || p.endsWith('.tsbuildinfo'))).toEqual([]);
    install(tarball, sandbox.tarball);
    const run = uproot('demo', '--dir', join(project, 'demo'), '-o', 'json');
    expect(run.stderr).not.toMatch(/warning|error/i);
    const demo = JSON.parse(run.stdout) as { migration: string; exitCode: number };
    expect(demo).toMatchObject({ migration: 'ran', exitCode: 0 });
  }, 300_000);
});
