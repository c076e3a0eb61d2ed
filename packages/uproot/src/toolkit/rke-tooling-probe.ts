/**
 * Asking what runs `rke up` for a cluster, so the RKE plan can refuse tooling without external-aws: the
 * Rancher server's version (the management cluster's `server-version` setting,
 * settings.management.cattle.io, as Rancher's UI shows it) or the RKE binary's (`rke --version`).
 */
import { rkeVersionFromOutput, type RkeTooling } from '../core/distros/rke/index.js';
import type { CommandRunner, ObjectStore } from '../engine/ports.js';

export async function rancherTooling(management: ObjectStore): Promise<RkeTooling | undefined> {
  const setting = await management
    .get({ apiVersion: 'management.cattle.io/v3', kind: 'Setting', name: 'server-version' })
    .catch(() => undefined);
  const value = (setting as { value?: unknown } | undefined)?.value;
  return typeof value === 'string' && value !== ''
    ? { kind: 'rancher', version: value, source: 'settings.management.cattle.io/server-version' }
    : undefined;
}

export async function rkeBinaryTooling(
  runner: CommandRunner,
  binary: string,
  cwd: string,
): Promise<RkeTooling | undefined> {
  const result = await runner.run({ file: binary, args: ['--version'], cwd, timeoutMs: 30_000 });
  if (result.type !== 'exited' || result.exitCode !== 0) return undefined;
  const version = rkeVersionFromOutput(result.stdout);
  return version ? { kind: 'rke', version, source: `${binary} --version` } : undefined;
}
