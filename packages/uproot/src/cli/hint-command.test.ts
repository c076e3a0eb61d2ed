import { Command } from 'commander';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { addExecutionOptions, addTargetOptions } from './command-options.js';
import { givenFlags, hintCommands, shellQuote } from './hint-command.js';

const rancher = [
  { flag: '--rancher-context', value: 'rancher' },
  { flag: '--cluster', value: 'fleet-default/prod' },
];

describe('hint commands', () => {
  it('repeats the target flags the hinted command takes, and only those', () => {
    const hints = hintCommands('uproot', [
      ...rancher,
      { flag: '--cluster-file', value: 'cluster.yml' },
      { flag: '--node-command', value: 'ssh {node} sudo tee {path}' },
      { flag: '--state-dir', value: 'state' },
    ]);
    expect(hints.command('migrate --resume')).toBe(
      "uproot migrate --resume --rancher-context rancher --cluster fleet-default/prod --cluster-file cluster.yml --node-command 'ssh {node} sudo tee {path}' --state-dir state",
    );
    expect(hints.command('verify')).toBe(
      'uproot verify --rancher-context rancher --cluster fleet-default/prod',
    );
    expect(hints.command('status')).toBe(
      'uproot status --rancher-context rancher --cluster fleet-default/prod --state-dir state',
    );
  });

  it('makes every backticked uproot command in a text runnable, under the name the user ran', () => {
    const hints = hintCommands('kubectl uproot', [{ flag: '--context', value: 'prod east' }]);
    expect(
      hints.runnable(
        'Continue with `uproot migrate --resume`, or `uproot rollback`; see `uproot leader-migration validate`.',
      ),
    ).toBe(
      "Continue with `kubectl uproot migrate --resume --context 'prod east'`, or `kubectl uproot rollback --context 'prod east'`; see `kubectl uproot leader-migration validate`.",
    );
    // A hint that already names the flag keeps its own value.
    expect(hints.runnable('`uproot verify --context other`')).toBe('`kubectl uproot verify --context other`');
  });

  it('takes the flags the user typed, not the defaults', () => {
    const cmd = addExecutionOptions(addTargetOptions(new Command('migrate')))
      .option('--yes')
      .exitOverride()
      .action(() => undefined);
    cmd.parse(['--context', 'c1', '--rancher-in-cluster', '--manual-done', 'install-ccm', '--yes'], {
      from: 'user',
    });
    expect(givenFlags(cmd)).toEqual([
      { flag: '--context', value: 'c1' },
      { flag: '--rancher-in-cluster' },
      { flag: '--manual-done', value: ['install-ccm'] },
      { flag: '--yes' },
    ]);
    expect(hintCommands('uproot', givenFlags(cmd)).command('verify')).toBe(
      'uproot verify --context c1 --rancher-in-cluster',
    );
  });

  it('quotes any word so that a POSIX shell reads it back unchanged', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }).filter((s) => !s.includes('\0')),
        (word) => {
          const echoed = execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`], { encoding: 'utf8' });
          expect(echoed).toBe(word);
        },
      ),
      { numRuns: 25 },
    );
  });
});
