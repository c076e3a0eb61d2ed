/**
 * One twin start-up, measured: wall time to start and to settle (every node Ready), heap growth and RSS.
 * Run directly (`node --expose-gc --import tsx bench/support/twin-startup.ts 5000 true`) it prints the figures
 * as one JSON line, so twin.bench.ts can measure a large twin in a process of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VirtualClock } from '../../packages/uproot/src/clock/index.js';
import { loadScenario } from '../../packages/sandbox/src/scenarios/index.js';
import { startTwin } from '../../packages/sandbox/src/twin/index.js';

const MiB = 2 ** 20;
/** With `node --expose-gc`, memory figures are measured after a full collection. */
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/**
 * RSS once the collector has handed its freed pages back. V8 unmaps the pages a full collection frees on
 * background threads, so RSS read right after gc() still counts up to ~180 MiB of them at 5,000 nodes
 * (760 MiB, then 601 MiB 250 ms later, with nothing else running: the twin is on a virtual clock). Collect
 * and wait until RSS stops falling (at most 2 s); the reading at gc() is reported beside it.
 */
async function settledRss(): Promise<number> {
  let rss = process.memoryUsage().rss;
  for (let round = 0; round < 10; round++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    gc();
    const now = process.memoryUsage().rss;
    if (rss - now < MiB) return Math.min(rss, now);
    rss = now;
  }
  return rss;
}

/**
 * `nodeImdsEndpoints: true` is what `uproot sandbox up` starts: the twin, then every node's own instance
 * metadata endpoint (exposeTwin opens them for sandbox.json); false is the twin alone, as before nodes had
 * endpoints of their own.
 */
export async function startup(
  nodes: number,
  nodeImdsEndpoints = true,
): Promise<Record<string, number | boolean>> {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-twin-bench-'));
  const clock = new VirtualClock();
  gc();
  const before = process.memoryUsage();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const twin = await startTwin({
    scenario: loadScenario('rke2-intree').scenario,
    clock,
    dir,
    nodes,
  });
  if (nodeImdsEndpoints)
    await Promise.all(twin.layout.instances.map((i) => twin.aws.openInstanceImds(i.instanceId)));
  const started = performance.now();
  const cpuStarted = process.cpuUsage(cpu0);
  // Until every node is Ready and every DaemonSet pod runs: twenty simulated seconds.
  await clock.advanceBy(20_000);
  const settled = performance.now();
  gc();
  const after = process.memoryUsage();
  const rss = await settledRss();
  const status = twin.status();
  await twin.close();
  rmSync(dir, { recursive: true, force: true });
  if (status.nodes.ready !== nodes) throw new Error(`only ${status.nodes.ready}/${nodes} nodes became Ready`);
  return {
    nodes,
    nodeImdsEndpoints,
    startMs: Math.round(started - t0),
    // CPU time (user + system) to start: less at the mercy of a busy machine than wall time.
    startCpuMs: Math.round((cpuStarted.user + cpuStarted.system) / 1000),
    readyMs: Math.round(settled - t0),
    heapUsedMiB: Math.round((after.heapUsed - before.heapUsed) / MiB),
    rssMiB: Math.round(rss / MiB),
    rssAtGcMiB: Math.round(after.rss / MiB),
    // The process's high-water mark (getrusage ru_maxrss, KiB): what the start-up needed at its peak.
    peakRssMiB: Math.round((process.resourceUsage().maxRSS * 1024) / MiB),
    heapTotalMiB: Math.round(after.heapTotal / MiB),
    externalMiB: Math.round(after.external / MiB),
    arrayBuffersMiB: Math.round(after.arrayBuffers / MiB),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await startup(Number(process.argv[2] ?? 5000), process.argv[3] !== 'false');
  console.log(JSON.stringify(figures));
}
