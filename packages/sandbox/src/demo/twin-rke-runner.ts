/**
 * The demo's `rke` for an RKE twin: `rke up --config FILE` becomes the twin's in-process `rke up` on that
 * file's text, answered like the real binary (exit 0, or 1 with RKE's reason on stderr). Every other command
 * goes to the real runner.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CommandResult, CommandRunner, CommandSpec, Clock } from 'uproot';
import type { RkeUpResult } from '../twin/index.js';
import { TWIN_RKE_VERSION } from '../twin/rke/rke-up.js';

/** The `--rke-binary` name the demo passes; it names no real program. */
export const TWIN_RKE_BINARY = 'uproot-twin-rke';

export function twinRkeRunner(
  applyRkeConfig: (text: string, file: string) => Promise<RkeUpResult>,
  clock: Clock,
  fallback: CommandRunner,
): CommandRunner {
  return {
    run: async (spec: CommandSpec, signal?: AbortSignal): Promise<CommandResult> => {
      if (spec.file !== TWIN_RKE_BINARY) return fallback.run(spec, signal);
      const [verb, flag, file] = spec.args;
      // The version `rke up` reports in its first log line (twin/rke/rke-up.ts).
      if (verb === '--version')
        return {
          type: 'exited',
          exitCode: 0,
          stdout: `rke version ${TWIN_RKE_VERSION}\n`,
          stderr: '',
          durationMs: 0,
        };
      if (verb !== 'up' || flag !== '--config' || !file) {
        return {
          type: 'not-started',
          message: `the twin's rke only runs "up --config FILE", not ${spec.args.join(' ')}`,
        };
      }
      const path = resolve(spec.cwd ?? '.', file);
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        return { type: 'not-started', message: `cannot read ${path}: ${(error as Error).message}` };
      }
      const started = clock.now();
      const result = await applyRkeConfig(text, path);
      const stdout = result.log.join('\n');
      return {
        type: 'exited',
        exitCode: result.ok ? 0 : 1,
        stdout,
        stderr: result.ok ? '' : `FATA[0000] ${result.reason}`,
        durationMs: clock.now() - started,
      };
    },
  };
}
