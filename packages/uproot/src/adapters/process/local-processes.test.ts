import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MachineProcesses, type ProcFs } from './local-processes.js';

const BOOT = '0e1d2c3b-aaaa-bbbb-cccc-000000000001';
const NS = 'pid:[4026531836]';

/** A /proc with the given processes (pid → starttime ticks). */
function procFs(processes: Record<number, string>, boot = BOOT, ns = NS): ProcFs {
  return {
    readFile: (path) => {
      if (path === '/proc/sys/kernel/random/boot_id') return `${boot}\n`;
      const m = /^\/proc\/(\d+)\/stat$/.exec(path);
      const ticks = m ? processes[Number(m[1])] : undefined;
      if (ticks === undefined) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      // The command name may hold spaces and parentheses; starttime is field 22.
      const fields = ['S', ...Array.from({ length: 18 }, (_, i) => String(i + 4)), ticks, '0'];
      return `${m![1]} (node (x) y) ${fields.join(' ')}\n`;
    },
    readLink: () => ns,
    signalZero: () => undefined,
  };
}

describe('MachineProcesses', () => {
  it('names a process by boot, pid namespace and start time, and tells a reused pid from it', () => {
    const holder = new MachineProcesses(procFs({ 4242: '98765' }), 'cp-1', 4242).self();
    expect(holder).toEqual({ hostname: 'cp-1', pid: 4242, start: `${BOOT}/${NS}/98765` });
    expect(new MachineProcesses(procFs({ 4242: '98765' }), 'cp-1', 1).stateOf(holder)).toBe('running');
    // Killed: no such pid any more.
    expect(new MachineProcesses(procFs({}), 'cp-1', 1).stateOf(holder)).toBe('gone');
    // The pid now belongs to a process started later.
    expect(new MachineProcesses(procFs({ 4242: '99999' }), 'cp-1', 1).stateOf(holder)).toBe('gone');
    // Rebooted since: every process of then is gone, whatever runs under that pid now.
    expect(new MachineProcesses(procFs({ 4242: '98765' }, 'other-boot'), 'cp-1', 1).stateOf(holder)).toBe(
      'gone',
    );
  });

  it('cannot see other machines or other pid namespaces: those holders are waited for', () => {
    const holder = new MachineProcesses(procFs({ 7: '1' }), 'laptop', 7).self();
    expect(new MachineProcesses(procFs({}), 'bastion', 1).stateOf(holder)).toBe('elsewhere');
    expect(new MachineProcesses(procFs({}, BOOT, 'pid:[1]'), 'laptop', 1).stateOf(holder)).toBe('elsewhere');
  });

  it('on this machine: a live child is running, and gone once killed', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      const holder = new MachineProcesses(undefined, undefined, child.pid!).self();
      const here = new MachineProcesses();
      expect(here.stateOf(holder)).toBe('running');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      expect(here.stateOf(holder)).toBe('gone');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
