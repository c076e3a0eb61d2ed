import { apiserverStartFailure, type KubernetesVersion } from '../../../core/kubernetes-version/index.js';
import type { ManagerExit, ManagerProcess } from '../managers/manager-launcher.js';

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
  if (failure) {
    options.log(failure.log);
    return {
      identity: options.identity,
      exited: Promise.resolve({ code: 1, reason: failure.error }),
      running: false,
      stop: () => Promise.resolve(),
    };
  }
  let running = true;
  let finish!: (exit: ManagerExit) => void;
  const exited = new Promise<ManagerExit>((resolve) => (finish = resolve));
  return {
    identity: options.identity,
    exited,
    get running() {
      return running;
    },
    stop: () => {
      if (running) {
        running = false;
        finish({ code: 0, reason: 'terminated' });
      }
      return Promise.resolve();
    },
  };
}
