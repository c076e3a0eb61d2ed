/**
 * The local copy of the journal, `.uproot/<cluster>/journal.json`: written after every save to the cluster
 * (atomically), so `uproot status` can show the last known state when the cluster cannot be reached and a
 * lost ConfigMap can be restored by hand.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { journalSchema, type Journal } from '../../engine/journal/journal-schema.js';
import { InputError } from '../../errors/index.js';
import { readFileIfExists, writeFileAtomic } from './atomic-write.js';

export class JournalMirror {
  readonly path: string;

  constructor(stateDir: string, cluster: string) {
    this.path = join(stateDir, safeName(cluster), 'journal.json');
  }

  write(journal: Journal): void {
    // Not flushed on every save: the cluster's copy is the durable one.
    writeFileAtomic(this.path, `${JSON.stringify(journal, null, 2)}\n`, { mode: 0o600, durable: false });
  }

  read(): Journal | undefined {
    const text = readFileIfExists(this.path);
    if (text === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw unreadable(this.path, error instanceof Error ? error.message : String(error));
    }
    const parsed = journalSchema.safeParse(value);
    if (!parsed.success) throw unreadable(this.path, parsed.error.issues[0]?.message ?? 'invalid');
    return parsed.data;
  }
}

/** The clusters with a local copy under `stateDir` (their directory names), none when it does not exist. */
export function mirroredClusters(stateDir: string): string[] {
  try {
    return readdirSync(stateDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
}

/** Every readable local copy under `stateDir`, with its path (an unreadable one is skipped). */
export function localJournalCopies(stateDir: string): { path: string; journal: Journal }[] {
  return mirroredClusters(stateDir).flatMap((name) => {
    const mirror = new JournalMirror(stateDir, name);
    try {
      const journal = mirror.read();
      return journal ? [{ path: mirror.path, journal }] : [];
    } catch {
      return [];
    }
  });
}

/** Cluster names become one directory name, never a path. */
export function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return cleaned || '_';
}

function unreadable(path: string, detail: string): InputError {
  return new InputError('UP-JOURNAL-MIRROR', `the local journal copy ${path} is unreadable: ${detail}`, {
    location: { file: path },
    hint: 'delete it; the journal in the cluster is the authoritative one',
  });
}
