/**
 * Runs a program (never through a shell) with an optional stdin, a deadline on the injected clock, and
 * bounded, secret-free captured output: what `rke up` and per-node commands go through.
 */
import { spawn } from 'node:child_process';
import type { Clock } from '../../clock/index.js';
import { redactSecrets } from '../../engine/redact.js';
import type { CommandResult, CommandRunner, CommandSpec } from '../../engine/ports.js';

export type { CommandResult, CommandRunner, CommandSpec };

class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return redactSecrets(all.subarray(Math.max(0, all.length - this.limit)).toString('utf8'));
  }
}

export class ProcessRunner implements CommandRunner {
  constructor(private readonly clock: Clock) {}

  run(spec: CommandSpec, signal?: AbortSignal): Promise<CommandResult> {
    const started = this.clock.now();
    const keep = spec.keepBytes ?? 64 * 1024;
    const stdout = new Tail(keep);
    const stderr = new Tail(keep);
    const timer = new AbortController();
    return new Promise<CommandResult>((resolve) => {
      let settled = false;
      let killedFor: 'timeout' | 'aborted' | undefined;
      const finish = (result: CommandResult): void => {
        if (settled) return;
        settled = true;
        timer.abort();
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const child = spawn(spec.file, [...spec.args], {
        cwd: spec.cwd,
        env: spec.env ? { ...process.env, ...spec.env } : process.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
      });
      const kill = (why: 'timeout' | 'aborted'): void => {
        killedFor = why;
        child.kill('SIGTERM');
        // Escalate if it ignores SIGTERM.
        this.clock.sleep(5_000).then(
          () => child.exitCode === null && child.kill('SIGKILL'),
          () => undefined,
        );
      };
      const onAbort = (): void => kill('aborted');
      signal?.addEventListener('abort', onAbort, { once: true });
      this.clock.sleep(spec.timeoutMs, timer.signal).then(
        () => kill('timeout'),
        () => undefined,
      );
      child.stdout.on('data', (c: Buffer) => stdout.push(c));
      child.stderr.on('data', (c: Buffer) => stderr.push(c));
      child.on('error', (error) => finish({ type: 'not-started', message: redactSecrets(error.message) }));
      child.on('close', (code, sig) => {
        if (killedFor || sig) {
          finish({
            type: 'killed',
            reason: killedFor ?? 'signal',
            ...(sig ? { signal: sig } : {}),
            stdout: stdout.text(),
            stderr: stderr.text(),
          });
        } else {
          finish({
            type: 'exited',
            exitCode: code ?? 0,
            stdout: stdout.text(),
            stderr: stderr.text(),
            durationMs: this.clock.now() - started,
          });
        }
      });
      child.stdin.on('error', () => undefined); // a program that does not read stdin closes it early
      child.stdin.end(spec.stdin ?? '');
    });
  }
}
