#!/usr/bin/env node
// The only place that sets the process exit code (see src/errors/exit-codes.ts).
import { runCli } from './program.js';
import './commands/index.js';
import type { CliIo } from './io.js';
import { createInterface } from 'node:readline/promises';

const controller = new AbortController();
let interrupts = 0;
process.on('SIGINT', () => {
  interrupts++;
  if (interrupts > 1) process.exit(130);
  process.stderr.write('\ninterrupted: stopping at the next safe point (Ctrl-C again to force)\n');
  controller.abort(new Error('interrupted'));
});

const io: CliIo = {
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

// kubectl runs plugins as kubectl-uproot with the same argv.
process.exitCode = await runCli(process.argv.slice(2), io);
