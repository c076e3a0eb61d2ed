/**
 * What a Job's pod runs in the twin: the image's `uproot` command, as a local Node process of this checkout,
 * on the twin's clock (clock-protocol.ts: the first message says how time runs). The rest is the CLI as a
 * person runs it: its arguments, its environment, its exit code. SIGTERM stops it at the next safe point, as
 * the CLI's own entry does.
 */
import { runUprootCli, type CliIo } from 'uproot/cli';
import { RealClock, type Clock } from 'uproot';
import { isToPod, type ToPod } from './clock-protocol.js';
import { BridgedClock } from './pod-clock.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const hello = await new Promise<ToPod>((resolve) => {
  const first = (m: unknown): void => {
    if (!isToPod(m) || m.t !== 'hello') return;
    process.off('message', first);
    resolve(m);
  };
  process.on('message', first);
});

let clock: Clock;
if (hello.t === 'hello' && hello.mode === 'virtual') {
  const bridged = new BridgedClock((m) => {
    if (process.connected) process.send?.(m);
  }, hello.now);
  process.on('message', (m) => {
    if (isToPod(m)) bridged.receive(m);
  });
  clock = bridged;
} else {
  clock = new RealClock({
    scale: hello.t === 'hello' && hello.mode === 'scaled' ? hello.scale : 1,
    start: hello.now,
  });
}

const controller = new AbortController();
process.on('SIGTERM', () => controller.abort(new Error('interrupted (SIGTERM)')));
process.on('SIGINT', () => controller.abort(new Error('interrupted (SIGINT)')));

const io: CliIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  interactive: false,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
  clock,
};

process.exitCode = await runUprootCli(process.argv.slice(2), io);
// The IPC channel would keep the process alive; the CLI is done.
if (process.connected) process.disconnect();
