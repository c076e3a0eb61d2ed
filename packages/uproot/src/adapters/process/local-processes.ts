/**
 * The machine's process table, for the migration lock (src/engine/lock/holder-process.ts). On Linux a
 * process is named by the boot id (/proc/sys/kernel/random/boot_id), its pid namespace
 * (/proc/self/ns/pid) and its start time in clock ticks since boot (field 22 of /proc/<pid>/stat, proc(5)),
 * so a pid reused by another process, a reboot, or a process in another container on the same host never
 * passes for the holder. Without /proc (macOS, Windows) only a pid that no longer exists counts as gone; a
 * live pid might be a reused one, so the lock waits for its lease as before.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { HolderProcess, HolderProcessState, LocalProcesses } from '../../engine/lock/holder-process.js';

export interface ProcFs {
  readFile(path: string): string;
  readLink(path: string): string;
  /** process.kill(pid, 0): throws ESRCH when there is no such process. */
  signalZero(pid: number): void;
}

const realFs: ProcFs = {
  readFile: (path) => readFileSync(path, 'utf8'),
  readLink: (path) => readlinkSync(path),
  signalZero: (pid) => void process.kill(pid, 0),
};

export class MachineProcesses implements LocalProcesses {
  constructor(
    private readonly fs: ProcFs = realFs,
    private readonly host: string = hostname(),
    private readonly pid: number = process.pid,
  ) {}

  self(): HolderProcess {
    return { hostname: this.host, pid: this.pid, start: this.startOf(this.pid) ?? `pid-${this.pid}` };
  }

  stateOf(holder: HolderProcess): HolderProcessState {
    if (holder.hostname !== this.host) return 'elsewhere';
    const [boot, namespace, ticks] = holder.start.split('/');
    const here = this.machine();
    if (!here || ticks === undefined) return this.bySignal(holder.pid);
    if (namespace !== here.namespace) return 'elsewhere';
    if (boot !== here.boot) return 'gone'; // the machine rebooted since: every process of then is gone
    const now = this.ticksOf(holder.pid);
    return now === ticks ? 'running' : 'gone';
  }

  /** `<boot id>/<pid namespace>/<start ticks>`, or undefined without /proc. */
  private startOf(pid: number): string | undefined {
    const machine = this.machine();
    const ticks = machine && this.ticksOf(pid);
    return machine && ticks ? `${machine.boot}/${machine.namespace}/${ticks}` : undefined;
  }

  private machine(): { boot: string; namespace: string } | undefined {
    try {
      return {
        boot: this.fs.readFile('/proc/sys/kernel/random/boot_id').trim(),
        namespace: this.fs.readLink('/proc/self/ns/pid'),
      };
    } catch {
      return undefined;
    }
  }

  /** Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses. */
  private ticksOf(pid: number): string | undefined {
    let stat: string;
    try {
      stat = this.fs.readFile(`/proc/${pid}/stat`);
    } catch {
      return undefined;
    }
    const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // afterName[0] is field 3 (state): starttime, field 22, is at index 19.
    return afterName[19];
  }

  private bySignal(pid: number): HolderProcessState {
    try {
      this.fs.signalZero(pid);
      return 'running';
    } catch (error) {
      return (error as { code?: string }).code === 'ESRCH' ? 'gone' : 'running';
    }
  }
}
