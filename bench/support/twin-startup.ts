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
    rssMiB: Math.round(after.rss / MiB),
    heapTotalMiB: Math.round(after.heapTotal / MiB),
    externalMiB: Math.round(after.external / MiB),
    arrayBuffersMiB: Math.round(after.arrayBuffers / MiB),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await startup(Number(process.argv[2] ?? 5000), process.argv[3] !== 'false');
  console.log(JSON.stringify(figures));
}
