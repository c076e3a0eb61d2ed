/**
 * The journal as ConfigMap data: one key per concern so each stays small and readable with kubectl
 * (`journal.json` for the header, `plan.json`, `step.<id>.json` per step, `lease-timeline.json`). All JSON.
 * A ConfigMap holds at most 1 MiB in total; encoding refuses to go past a safety margin below that.
 */
import { z } from 'zod';
import { InputError, UprootError, ExitCode } from '../../errors/index.js';
import { journalSchema, type Journal } from './journal-schema.js';

export const HEADER_KEY = 'journal.json';
export const PLAN_KEY = 'plan.json';
export const TIMELINE_KEY = 'lease-timeline.json';
export const stepKey = (id: string): string => `step.${id}.json`;

/** The API server's limit is 1 MiB for all data; keep room for metadata and the next write's growth. */
export const JOURNAL_SIZE_LIMIT = 900 * 1024;

export function encodeJournal(journal: Journal): Record<string, string> {
  const { plan, steps, leaseTimeline, ...header } = journal;
  const data: Record<string, string> = {
    [HEADER_KEY]: JSON.stringify({ ...header, stepOrder: steps.map((s) => s.id) }, null, 1),
    [PLAN_KEY]: JSON.stringify(plan),
    [TIMELINE_KEY]: JSON.stringify(leaseTimeline),
  };
  for (const step of steps) data[stepKey(step.id)] = JSON.stringify(step, null, 1);
  const size = Object.entries(data).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0);
  if (size > JOURNAL_SIZE_LIMIT) {
    throw new UprootError(
      'UP-JOURNAL-TOO-LARGE',
      `the journal would be ${Math.round(size / 1024)} KiB, over the ${JOURNAL_SIZE_LIMIT / 1024} KiB kept below the ConfigMap limit of 1 MiB`,
      {
        source: 'uproot',
        exitCode: ExitCode.internal,
        hint: 'this should not happen with a normal plan; please report it with the size of each step (kubectl get configmap -o json)',
      },
    );
  }
  return data;
}

export function decodeJournal(data: Readonly<Record<string, string>>, source: string): Journal {
  const header = parseKey(data, HEADER_KEY, source) as { stepOrder?: unknown } & Record<string, unknown>;
  const order = z.array(z.string()).safeParse(header.stepOrder);
  if (!order.success) throw corrupt(source, HEADER_KEY, 'stepOrder is missing');
  const { stepOrder: _order, ...rest } = header;
  const candidate = {
    ...rest,
    plan: parseKey(data, PLAN_KEY, source),
    leaseTimeline: parseKey(data, TIMELINE_KEY, source),
    steps: order.data.map((id) => parseKey(data, stepKey(id), source)),
  };
  const parsed = journalSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw corrupt(source, HEADER_KEY, `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

function parseKey(data: Readonly<Record<string, string>>, key: string, source: string): unknown {
  const text = data[key];
  if (text === undefined) throw corrupt(source, key, 'the key is missing');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw corrupt(source, key, `not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

function corrupt(source: string, key: string, detail: string): InputError {
  return new InputError('UP-JOURNAL-CORRUPT', `the migration journal ${source} is unreadable: ${detail}`, {
    location: { file: source, field: `data["${key}"]` },
    hint: 'someone edited it by hand; restore it from the local copy (.uproot/<cluster>/journal.json) with kubectl, or delete it to start over (only when the cluster is back in its original state)',
  });
}
