/** Runs `migrate` against an engine sandbox with the small plan (shared by the migrate tests). */
import { join } from 'node:path';
import { seededRandom } from '../../../packages/uproot/src/clock/index.js';
import type { KubeTransport } from '../../../packages/uproot/src/adapters/kube/kube-client.js';
import { ConfigMapJournalStore } from '../../../packages/uproot/src/adapters/kube/journal-store.js';
import type { EngineEvent } from '../../../packages/uproot/src/engine/events.js';
import {
  migrate,
  type MigrateOptions,
  type MigrateResult,
} from '../../../packages/uproot/src/toolkit/migrate.js';
import { drive, engineSandbox, type EngineSandbox } from './harness.js';
import { seedLoadBalancer, smallPlan } from './small-plan.js';

export const sandboxes: EngineSandbox[] = [];
export async function sandbox(seed = 7): Promise<EngineSandbox> {
  const sb = await engineSandbox({ seed });
  sandboxes.push(sb);
  seedLoadBalancer(sb.server);
  return sb;
}

export function run(
  sb: EngineSandbox,
  options: Partial<MigrateOptions> = {},
  extra: {
    wrap?: (t: KubeTransport) => KubeTransport;
    attempts?: number;
    events?: EngineEvent[];
    runId?: string;
  } = {},
): Promise<MigrateResult> {
  const objects = sb.objects(extra.wrap, extra.attempts ? { attempts: extra.attempts } : {});
  return drive(
    sb.clock,
    migrate(
      { yes: true, stateDir: join(sb.dir, '.uproot'), ...options },
      { cwd: sb.dir, env: {}, interactive: false },
      {
        clock: sb.clock,
        random: seededRandom(3),
        connect: () => ({ downstream: objects }),
        buildPlan: async () => smallPlan(),
        preflight: async () => ({ outcome: 'pass', failures: [] }),
        runId: extra.runId ?? 'run-1',
        ...(extra.events ? { onEvent: (e: EngineEvent) => extra.events!.push(e) } : {}),
      },
    ),
  );
}

export async function journalOf(sb: EngineSandbox) {
  return new ConfigMapJournalStore(sb.objects(), {
    namespace: 'kube-system',
    name: 'uproot-migration',
  }).load();
}
