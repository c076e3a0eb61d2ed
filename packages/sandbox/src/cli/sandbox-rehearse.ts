import type { Command } from 'commander';
import { type CommandContext, parseOutputFormat, renderDocument } from 'uproot/cli';
import { ExitCode, InputError } from 'uproot';
import { DEFAULT_TIMINGS, electionTimingsError, type ElectionTimings } from 'uproot/election';
import { rehearseSandboxMigration } from '../rehearsal/rehearse-sandbox.js';
import { rehearsalDocument, rehearsalVerdict, renderRehearsalText } from '../rehearsal/rehearsal-document.js';

/**
 * `uproot sandbox rehearse`: the migration of seeds 002/003 in virtual time against an in-process sandbox,
 * printing per migrated controller its overlap and largest gap. Exit 0 when the run shows what it should
 * (with leader migration: the promise holds; without: the gap is there to see), 1 when leader migration
 * failed its promise. The `sandbox` group (src/cli/commands/sandbox.ts) calls this.
 */
export function addRehearseCommand(sandbox: Command, ctx: CommandContext): void {
  sandbox
    .command('rehearse')
    .description(
      'Rehearse the KCM → CCM migration in virtual time on a sandbox (3 control-plane nodes) and show per controller the overlap and the largest gap',
    )
    .option(
      '--without-leader-migration',
      'the naive procedure: stop the KCM cloud controllers, then deploy the CCM',
      false,
    )
    .option('--seed <n>', 'seed for identities and jitter (same seed, same run)', '1')
    .option('--timings <ld,rd,rp>', 'lease duration, renew deadline and retry period in seconds', '15,10,2')
    .option('-o, --output <format>', 'text or json', 'text')
    .action(
      ctx.run(
        async (opts: { withoutLeaderMigration: boolean; seed: string; timings: string; output: string }) => {
          const format = parseOutputFormat(opts.output, ['text', 'json']);
          const seed = parseSeed(opts.seed);
          const timings = parseTimings(opts.timings);
          const progress = format === 'text' && ctx.io.interactive;
          const report = await rehearseSandboxMigration({
            leaderMigration: !opts.withoutLeaderMigration,
            seed,
            timings,
            ...(progress
              ? {
                  onStep: (t: number, s: string) =>
                    ctx.io.stderr(`[${new Date(t).toISOString().slice(11, 19)}] ${s}\n`),
                }
              : {}),
          });
          ctx.io.stdout(
            format === 'json'
              ? renderDocument(rehearsalDocument(report), 'json')
              : renderRehearsalText(report),
          );
          return report.leaderMigration && !rehearsalVerdict(report).promiseHolds
            ? ExitCode.failed
            : ExitCode.ok;
        },
      ),
    );
}

function parseSeed(value: string): number {
  if (!/^\d{1,10}$/.test(value)) {
    throw new InputError('UP-REHEARSE-SEED', `--seed must be a whole number, got "${value}"`, {
      location: { field: '--seed', value },
      hint: 'pass a number such as --seed 42',
    });
  }
  return Number(value);
}

/** `15,10,2` in seconds, checked with client-go's NewLeaderElector rules and messages. */
export function parseTimings(value: string): ElectionTimings {
  const parts = value.split(',').map((p) => p.trim());
  const numbers = parts.map(Number);
  if (parts.length !== 3 || numbers.some((n) => !Number.isFinite(n) || n <= 0)) {
    throw new InputError(
      'UP-REHEARSE-TIMINGS',
      `--timings must be three positive numbers of seconds, got "${value}"`,
      {
        location: { field: '--timings', value },
        hint: `use lease duration, renew deadline and retry period, e.g. ${DEFAULT_TIMINGS.leaseDurationMs / 1000},${DEFAULT_TIMINGS.renewDeadlineMs / 1000},${DEFAULT_TIMINGS.retryPeriodMs / 1000}`,
      },
    );
  }
  const timings: ElectionTimings = {
    leaseDurationMs: numbers[0]! * 1000,
    renewDeadlineMs: numbers[1]! * 1000,
    retryPeriodMs: numbers[2]! * 1000,
  };
  const invalid = electionTimingsError(timings);
  if (invalid) {
    throw new InputError('UP-REHEARSE-TIMINGS', `--timings ${value}: ${invalid}`, {
      location: { field: '--timings', value },
      hint: 'leader election needs lease duration > renew deadline > 1.2 × retry period > 0',
    });
  }
  return timings;
}
