#!/usr/bin/env node
// The only place that sets the process exit code (see src/errors/exit-codes.ts).
import { runCli } from './program.js';
import './commands/index.js';
import type { CliIo } from './io.js';
import { createInterface } from 'node:readline/promises';
import { basename } from 'node:path';
import { dailyEndOfLifeNotice } from './node-line.js';

// The AWS SDK warns on Node < 22, in eight lines, about its releases after January 2027; uproot pins SDK
// versions that run on Node 20 (docs/decisions/0010-node-lines-and-single-executable.md). uproot says it
// in one line on stderr (never on stdout, which may be -o json), at most once a day, on every end-of-life line.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const notice = dailyEndOfLifeNotice(process.version, new Date(), process.env);
if (notice !== undefined) process.stderr.write(`${notice}\n`);

const controller = new AbortController();
let interrupts = 0;
// Ctrl-C, and a service manager's or CI runner's SIGTERM: stop at the next safe point (the journal is
// consistent at every write, so `--resume` continues); a second signal forces the exit.
const interrupt = (signal: NodeJS.Signals): void => {
  interrupts++;
  if (interrupts > 1) process.exit(130);
  process.stderr.write(
    `\ninterrupted (${signal}): stopping at the next safe point (${signal === 'SIGINT' ? 'Ctrl-C' : 'the signal'} again to force)\n`,
  );
  controller.abort(new Error('interrupted'));
};
process.on('SIGINT', interrupt);
process.on('SIGTERM', interrupt);

const io: CliIo = {
  // kubectl runs the plugin as kubectl-uproot (a link, the npm bin or the single executable of that name).
  programName: basename(process.argv[1] ?? '').startsWith('kubectl-uproot') ? 'kubectl uproot' : 'uproot',
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  interactive: Boolean(process.stdout.isTTY && process.stdin.isTTY) && !process.env.CI,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
  confirm: async (question) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question(`${question} [y/N] `);
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  },
};

// kubectl runs plugins as kubectl-uproot with the same argv. No top-level await: the single executable
// (scripts/build-binary.ts) bundles this entry as CommonJS.
void runCli(process.argv.slice(2), io).then((code) => {
  process.exitCode = code;
});
