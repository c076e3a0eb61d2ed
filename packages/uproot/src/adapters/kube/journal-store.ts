/**
 * The journal in the cluster: a ConfigMap written with optimistic concurrency. Every save carries the
 * resourceVersion last read or written; on 409 the store reads the ConfigMap again and decides:
 * - it already holds exactly what we are writing → an earlier attempt of this save landed (a retried
 *   request); adopt it;
 * - it holds the revision we built on → only its metadata changed (a label); write again;
 * - anything else → another run wrote the journal: stop (the lock should have prevented that).
 */
import type { JournalLocation, Journal } from '../../engine/journal/journal-schema.js';
import { decodeJournal, encodeJournal } from '../../engine/journal/journal-codec.js';
import { LockError } from '../../errors/index.js';
import { isKubeStatus } from './kube-client.js';
import { sameObject } from '../../engine/appliers/object-writer.js';
import type { JournalStore, KubeObject, ObjectStore } from '../../engine/ports.js';

export type { JournalStore };

export const JOURNAL_LABELS = { 'app.kubernetes.io/managed-by': 'uproot', 'uproot.dev/journal': 'true' };

export class ConfigMapJournalStore implements JournalStore {
  readonly where: string;
  private resourceVersion: string | undefined;

  constructor(
    private readonly objects: ObjectStore,
    private readonly location: Pick<JournalLocation, 'namespace' | 'name'>,
    private readonly onSaved?: (journal: Journal) => Promise<void> | void,
  ) {
    this.where = `configmap ${location.namespace}/${location.name}`;
  }

  private get ref() {
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: this.location.namespace,
      name: this.location.name,
    };
  }

  async load(): Promise<Journal | undefined> {
    const cm = await this.objects.get(this.ref);
    this.resourceVersion = cm?.metadata?.resourceVersion;
    if (!cm) return undefined;
    return decodeJournal((cm.data ?? {}) as Record<string, string>, this.where);
  }

  async save(journal: Journal): Promise<Journal> {
    const next: Journal = { ...journal, revision: journal.revision + 1 };
    const data = encodeJournal(next);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const written = await this.write(data);
        this.resourceVersion = written.metadata?.resourceVersion;
        await this.onSaved?.(next);
        return next;
      } catch (error) {
        if (!isKubeStatus(error, 409)) throw error;
      }
      const current = await this.objects.get(this.ref);
      this.resourceVersion = current?.metadata?.resourceVersion;
      if (!current) continue;
      const stored = decodeJournal((current.data ?? {}) as Record<string, string>, this.where);
      if (sameObject(stored, next)) {
        await this.onSaved?.(next);
        return next;
      }
      if (stored.revision !== journal.revision) throw concurrentWriter(this.where, stored, journal);
    }
    throw concurrentWriter(this.where, undefined, journal);
  }

  private write(data: Record<string, string>): Promise<KubeObject> {
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: this.location.name,
        namespace: this.location.namespace,
        labels: JOURNAL_LABELS,
        ...(this.resourceVersion ? { resourceVersion: this.resourceVersion } : {}),
      },
      data,
    };
    return this.resourceVersion ? this.objects.replace(cm) : this.objects.create(cm);
  }
}

function concurrentWriter(where: string, stored: Journal | undefined, ours: Journal): LockError {
  const by = stored?.runs.at(-1)?.runId;
  return new LockError(
    'UP-JOURNAL-CONFLICT',
    `the journal ${where} was written by another run${by ? ` (${by}, revision ${stored?.revision})` : ''} while this run (revision ${ours.revision}) held the lock`,
    {
      hint: 'two uproot runs are working on this cluster; stop the other one, then run `uproot status` and continue with `uproot migrate --resume`',
    },
  );
}
