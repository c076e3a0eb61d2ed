import type { ManagerExit, ManagerProcess } from './manager-launcher.js';

/**
 * Processes of the twin's own components (a kube-apiserver instance, RKE2's cloud controller): one that runs
 * until the kubelet stops it, and one that has already exited (a binary refusing its flags).
 */
export function runUntilStopped(identity: string, onStop: () => void = () => undefined): ManagerProcess {
  let running = true;
  let finish!: (exit: ManagerExit) => void;
  const exited = new Promise<ManagerExit>((resolve) => (finish = resolve));
  return {
    identity,
    exited,
    get running() {
      return running;
    },
    stop: () => {
      if (running) {
        running = false;
        onStop();
        finish({ code: 0, reason: 'terminated' });
      }
      return Promise.resolve();
    },
  };
}

export function exitedAtStart(identity: string, exit: ManagerExit): ManagerProcess {
  return { identity, exited: Promise.resolve(exit), running: false, stop: () => Promise.resolve() };
}
