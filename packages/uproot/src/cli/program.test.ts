import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { invokedCommand, registeredCommands, runCli } from './program.js';
import { hintCommands } from './hint-command.js';
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

  it('refuses an UPROOT_CLOCK_URL that is not an http(s) URL, naming it, before the command runs', async () => {
    const io = recordingIo({ env: { UPROOT_CLOCK_URL: 'ftp://127.0.0.1/v1/clock' } });
    expect(await runCli(['plan', '--example', 'rke2'], io)).toBe(2);
    expect(io.stderrText).toMatch(/UP-CLOCK-URL/);
    expect(io.stderrText).toMatch(/UPROOT_CLOCK_URL/);
    expect(io.stdoutText).toBe('');
    // --version runs no command action: the clock is never followed.
    expect(await runCli(['--version'], recordingIo({ env: { UPROOT_CLOCK_URL: 'nope' } }))).toBe(0);
  });

  it('exits 2 on an unknown command', async () => {
    const io = recordingIo();
    expect(await runCli(['no-such-command'], io)).toBe(2);
    expect(io.stderrText).toMatch(/unknown command/);
  });
});

describe('lazily loaded commands', () => {
  it('names the top-level command argv invokes', () => {
    expect(invokedCommand(['--version'])).toBeUndefined();
    expect(invokedCommand(['plan', '--example', 'rke2'])).toBe('plan');
    expect(invokedCommand(['--help', 'demo'])).toBe('demo');
    expect(invokedCommand(['help', 'sandbox'])).toBe('sandbox');
  });

  it('lists each command as its module registers it (name, description, options)', async () => {
    const lazy = registeredCommands().filter((c) => typeof c !== 'function');
    expect(lazy.map((c) => c.name)).toEqual([
      'preflight',
      'plan',
      'migrate',
      'verify',
      'status',
      'rollback',
      'report',
      'snapshot',
      'fleet',
      'demo',
      'sandbox',
      'leader-migration',
    ]);
    for (const entry of lazy) {
      const program = new Command('uproot');
      (await entry.load())(program, {
        io: recordingIo(),
        programName: 'uproot',
        hints: () => hintCommands('uproot', []),
        run:
          (a) =>
          async (...args) =>
            void (await a(...args)),
      });
      expect(
        program.commands.map((c) => c.name()),
        entry.name,
      ).toEqual([entry.name]);
      const cmd = program.commands[0]!;
      expect(cmd.description(), entry.name).toBe(entry.description);
      expect(cmd.options.length > 0, entry.name).toBe(entry.options);
      expect(cmd.registeredArguments, entry.name).toEqual([]);
    }
  });

  it('calls itself kubectl uproot when kubectl runs it as the plugin', async () => {
    const io = { ...recordingIo(), programName: 'kubectl uproot' };
    const out: string[] = [];
    const code = await runCli(['--help'], { ...io, stdout: (t) => out.push(t) });
    expect(code).toBe(0);
    expect(out.join('')).toMatch(/^Usage: kubectl uproot \[options\] \[command\]/);
    const sub: string[] = [];
    await runCli(['verify', '--help'], { ...io, stdout: (t) => sub.push(t) });
    expect(sub.join('')).toMatch(/^Usage: kubectl uproot verify \[options\]/);
  });

  it('says what --target-version does: past the next minor, one minor at a time', async () => {
    const io = recordingIo();
    await runCli(['plan', '--help'], io);
    expect(io.stdoutText).not.toContain('at most the next minor');
    expect(io.stdoutText.replace(/\s+/g, ' ')).toContain('one minor at a time');
  });

  it('shows a command\u2019s own help from its module', async () => {
    const io = recordingIo();
    expect(await runCli(['plan', '--help'], io)).toBe(0);
    expect(io.stdoutText).toContain('--example <name>');
    const help = recordingIo();
    expect(await runCli(['help', 'leader-migration'], help)).toBe(0);
    expect(help.stdoutText).toMatch(/validate/);
  });
});
