import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { endOfLifeNotice } from '../../../packages/uproot/src/cli/node-line.js';

/**
 * The built CLI (dist/, as npm installs it) run as a user runs it: which modules a command loads, and what it
 * prints on an end-of-life Node.js line. `npm test` builds dist/ first.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'packages/uproot/dist/cli/main.js');
const work = mkdtempSync(join(tmpdir(), 'uproot-startup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Records the URL of every module the process loads: in-thread hooks where Node has them (22.15+, which
// also see require()), off-thread module.register() hooks on Node 20.
const RECORDER = `
import * as module from 'node:module';
import { appendFileSync } from 'node:fs';
const log = process.env.UPROOT_MODULE_LOG;
if (module.registerHooks) {
  module.registerHooks({ load(url, context, next) { appendFileSync(log, url + '\\n'); return next(url, context); } });
} else {
  module.register('data:text/javascript,' + encodeURIComponent(
    'import { appendFileSync } from "node:fs";' +
    'export async function load(url, context, next) { appendFileSync(' + JSON.stringify(log) + ', url + "\\\\n"); return next(url, context); }'));
}`;

let runs = 0;
function loadedModules(args: readonly string[]): { code: number | null; modules: string[]; stdout: string } {
  const log = join(work, `modules-${++runs}.log`);
  const result = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(RECORDER)}`, CLI, ...args],
    { cwd: work, encoding: 'utf8', env: { ...process.env, UPROOT_MODULE_LOG: log } },
  );
  const modules = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  return { code: result.status, modules, stdout: result.stdout };
}

const under = (dir: string) => (url: string) => url.startsWith(pathToFileURL(join(ROOT, dir)).href + '/');

describe('uproot start-up', () => {
  it('the test process runs on the Node.js first on the PATH (how .ci/run tests each line)', () => {
    const onPath = spawnSync('node', ['--version'], { encoding: 'utf8' }).stdout.trim();
    expect(process.version).toBe(onPath);
  });

  it('--version loads no command module, no sandbox, toolkit or AWS SDK', () => {
    const { code, modules, stdout } = loadedModules(['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    // The recorder sees the CLI's own modules (else this test proves nothing).
    expect(modules).toContain(pathToFileURL(CLI).href);
    expect(modules.filter(under('packages/sandbox'))).toEqual([]);
    expect(modules.filter(under('packages/uproot/dist/toolkit'))).toEqual([]);
    expect(modules.filter(under('packages/uproot/dist/cli/commands')).map((u) => u.split('/').pop())).toEqual(
      ['index.js'],
    );
    expect(modules.filter((u) => u.includes('/@aws-sdk/'))).toEqual([]);
    expect(modules.filter((u) => u.includes('/@kubernetes/'))).toEqual([]);
  });

  it('plan loads no sandbox module; the demo does', () => {
    const plan = loadedModules(['plan', '--example', 'rke2']);
    expect(plan.code).toBe(0);
    expect(plan.modules.filter(under('packages/uproot/dist/core/plan')).length).toBeGreaterThan(0);
    expect(plan.modules.filter(under('packages/sandbox'))).toEqual([]);
    const demoHelp = loadedModules(['demo', '--help']);
    expect(demoHelp.code).toBe(0);
    expect(demoHelp.modules.filter(under('packages/sandbox')).length).toBeGreaterThan(0);
    expect(demoHelp.modules.filter((u) => u.includes('/@aws-sdk/')).length).toBeGreaterThan(0);
  });

  it('on an end-of-life Node.js line says so once a day, in one line on stderr; -o json stays JSON', () => {
    const dir = join(work, 'demo');
    // A cache folder of its own: the day the notice was last shown is kept there.
    const env = {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined,
      XDG_CACHE_HOME: join(work, 'cache'),
    };
    const result = spawnSync(process.execPath, [CLI, 'demo', '--dir', dir, '-o', 'json'], {
      cwd: work,
      encoding: 'utf8',
      env,
    });
    expect(result.status, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { migration: string }).migration).toBe('ran');
    // The demo builds AWS SDK clients, which on Node < 22 would print the SDK's eight-line warning.
    expect(result.stderr).not.toMatch(/NodeVersionSupportWarning/);
    const notice = endOfLifeNotice(process.version, new Date());
    const lines = result.stderr.split('\n').filter((l) => l.includes('end of life'));
    expect(lines).toEqual(notice === undefined ? [] : [notice]);
    // The next command the same day: no notice.
    const again = spawnSync(process.execPath, [CLI, '--version'], { cwd: work, encoding: 'utf8', env });
    expect(again.status).toBe(0);
    expect(again.stderr).not.toContain('end of life');
  });
});
