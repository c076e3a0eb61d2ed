import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { runCli } from './program.js';
import { recordingIo } from './io.js';
import { VERSION } from '../version.js';
import './commands/index.js';

describe('runCli', () => {
  it('prints the version that package.json declares', async () => {
    const io = recordingIo();
    expect(await runCli(['--version'], io)).toBe(0);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(io.stdoutText.trim()).toBe(pkg.version);
    expect(VERSION).toBe(pkg.version);
  });

  it('exits 2 on an unknown command', async () => {
    const io = recordingIo();
    expect(await runCli(['no-such-command'], io)).toBe(2);
    expect(io.stderrText).toMatch(/unknown command/);
  });
});
