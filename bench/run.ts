// `npm run bench`: runs every bench/*.bench.ts (or those named on the command line) and prints one JSON document.
// Each bench module exports `run(): Promise<Record<string, unknown>>` returning its figures.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import os from 'node:os';

// The workspace's packages from their sources (docs/decisions/0019-sandbox-workspace-package.md): `npm run
// bench` passes the condition; `npx tsx bench/run.ts` is run again with it, so both measure the same code.
const CONDITION = '--conditions=uproot-source';
if (!process.execArgv.includes(CONDITION)) {
  const again = spawnSync(process.execPath, [CONDITION, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  process.exit(again.status ?? 1);
}

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

const results: Record<string, unknown> = {};
for (const file of files) {
  const name = file.replace(/\.bench\.ts$/, '');
  const mod = (await import(pathToFileURL(join(here, file)).href)) as {
    run: () => Promise<Record<string, unknown>>;
  };
  process.stderr.write(`bench ${name}...\n`);
  const started = performance.now();
  results[name] = await mod.run();
  process.stderr.write(`bench ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
console.log(
  JSON.stringify(
    {
      machine: {
        node: process.version,
        cpus: os.cpus().length,
        memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      },
      results,
    },
    null,
    2,
  ),
);
