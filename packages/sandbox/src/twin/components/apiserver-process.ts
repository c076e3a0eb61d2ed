import { apiserverStartFailure, type KubernetesVersion } from 'uproot/core';
import type { ManagerProcess } from '../managers/manager-launcher.js';
import { exitedAtStart, runUntilStopped } from '../managers/plain-process.js';

/**
 * A kube-apiserver container of the twin. The twin's one API server answers for every instance, so this
 * process only decides whether the instance starts with its flags (a removed flag makes it exit 1 at once, and
 * the kubelet restarts it with its back-off) and, while it runs, which version `/version` reports for it.
 */
export function startApiserverProcess(options: {
  readonly identity: string;
  readonly version: KubernetesVersion | undefined;
  readonly args: readonly string[];
  readonly log: (line: string) => void;
}): ManagerProcess {
  const failure = options.version ? apiserverStartFailure(options.version, options.args) : undefined;
  if (!failure) return runUntilStopped(options.identity);
  options.log(failure.log);
  return exitedAtStart(options.identity, { code: 1, reason: failure.error });
}
