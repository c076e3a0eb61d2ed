import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import { recordingIo } from '../../../packages/uproot/src/cli/io.js';
import { runCli } from '../../../packages/uproot/src/cli/program.js';
import '../../../packages/uproot/src/cli/commands/index.js';
import {
  startFleetTwin,
  type FleetTwin,
  type StartFleetTwinOptions,
} from '../../../packages/sandbox/src/fleet/fleet-twin.js';
import type { RunHost } from '../../../packages/uproot/src/toolkit/session/run-settings.js';

/**
 * A fleet twin in virtual time (a driver jumps from timer to timer, never during tracked I/O; Job pods join
 * the clock over IPC), with the flags and host a person's terminal would give the fleet commands.
 */
export interface FleetHarness {
  readonly fleet: FleetTwin;
  readonly clock: VirtualClock;
  readonly dir: string;
  readonly host: RunHost;
  readonly targets: { kubeconfig: string; rancherContext: string; awsEnvDir: string };
  /** The CLI in this process, on the twin's clock: exit code and what it printed. */
  cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

export async function startFleetHarness(
  options: Omit<StartFleetTwinOptions, 'clock' | 'dir' | 'podClock'> = {},
): Promise<FleetHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-fleet-'));
  const clock = new VirtualClock(Date.UTC(2026, 10, 1));
  let driving = true;
  const driver = (async () => {
    while (driving) await clock.advanceBy(250);
  })();
  const fleet = await startFleetTwin({
    nodes: 4,
    ...options,
    clock,
    dir: join(dir, 'twin'),
    podClock: { type: 'virtual' },
  });
  const env = { PATH: process.env.PATH ?? '', HOME: dir };
  const targets = {
    kubeconfig: fleet.files.kubeconfig,
    rancherContext: fleet.context,
    awsEnvDir: fleet.files.awsEnvDir,
  };
  return {
    fleet,
    clock,
    dir,
    host: { cwd: dir, env, interactive: false },
    targets,
    cli: async (args) => {
      // Not spread: the recording's text getters must stay live.
      const io = Object.assign(recordingIo({ cwd: dir, env }), { clock });
      const code = await runCli(
        [...args, '--kubeconfig', targets.kubeconfig, '--rancher-context', targets.rancherContext],
        io,
      );
      return { code, stdout: io.stdoutText, stderr: io.stderrText };
    },
    close: async () => {
      await fleet.close();
      driving = false;
      await driver;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
