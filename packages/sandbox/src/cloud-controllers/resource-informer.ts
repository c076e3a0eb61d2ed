import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { Clock } from 'uproot';

interface Meta {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

export type InformerEvent = 'ADDED' | 'MODIFIED' | 'DELETED' | 'RELIST';

export interface ResourceInformerOptions<T extends Meta> {
  readonly kubeConfig: KubeConfig;
  /** Collection path to watch, e.g. `/api/v1/nodes`. */
  readonly path: string;
  /** A paged list of the whole collection (already tracked on the clock by the caller). */
  readonly list: () => Promise<{ items: T[]; resourceVersion: string | undefined }>;
  readonly clock: Clock;
  /** Wait between failed list/watch attempts. */
  readonly retryMs?: number;
  readonly onError?: (message: string) => void;
}

/**
 * A list-then-watch cache of one collection, the shape of client-go's shared informer: one initial list,
 * then a watch from its resourceVersion; a clean end of the stream re-watches from the last version seen, a
 * 410 Gone or any other failure re-lists after `retryMs` on the clock. Listeners are told about every change
 * so controllers can react at once; they still resync on their own period, which is what keeps behaviour
 * deterministic in virtual time (watch events arrive on real I/O the clock does not track).
 */
export class ResourceInformer<T extends Meta> {
  private readonly objects = new Map<string, T>();
  private readonly listeners = new Set<(type: InformerEvent, obj: T | undefined) => void>();
  private resourceVersion: string | undefined;
  private watchAbort: AbortController | undefined;
  private readonly stopper = new AbortController();
  private synced: Promise<void> | undefined;

  constructor(private readonly options: ResourceInformerOptions<T>) {}

  /**
   * Starts once (later calls return the same promise) and resolves after the first successful list, retrying
   * a failing one every `retryMs` like WaitForCacheSync; rejects only when stopped first.
   */
  start(): Promise<void> {
    this.synced ??= (async () => {
      for (;;) {
        try {
          await this.relist();
          break;
        } catch (error) {
          if (this.stopped) throw error;
          this.options.onError?.(`list ${this.options.path} failed: ${String(error)}`);
          await this.options.clock.sleep(this.options.retryMs ?? 1000, this.stopper.signal);
        }
      }
      void this.watchLoop();
    })();
    return this.synced;
  }

  stop(): void {
    this.stopper.abort();
    this.watchAbort?.abort();
  }

  get stopped(): boolean {
    return this.stopper.signal.aborted;
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  onChange(listener: (type: InformerEvent, obj: T | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(type: InformerEvent, obj: T | undefined): void {
    for (const l of this.listeners) l(type, obj);
  }

  private async relist(): Promise<void> {
    const { items, resourceVersion } = await this.options.list();
    this.objects.clear();
    for (const item of items) this.objects.set(keyOf(item), item);
    this.resourceVersion = resourceVersion;
    this.emit('RELIST', undefined);
  }

  private async watchLoop(): Promise<void> {
    const retryMs = this.options.retryMs ?? 1000;
    while (!this.stopped) {
      const outcome = await this.watchOnce();
      if (this.stopped) return;
      try {
        // A stream the server ends after delivering events is resumed at once; an empty one waits first,
        // so a server that keeps closing streams is not hammered.
        if (outcome === 'ended') continue;
        await this.options.clock.sleep(retryMs, this.stopper.signal);
        if (outcome === 'failed') await this.relist();
      } catch (error) {
        if (this.stopped) return;
        this.options.onError?.(`re-list ${this.options.path} failed: ${String(error)}`);
      }
    }
  }

  /**
   * One watch stream; resolves when it ends: cleanly after events ('ended'), cleanly without any ('empty'),
   * or not ('failed', which means re-list).
   */
  private watchOnce(): Promise<'ended' | 'empty' | 'failed'> {
    return new Promise((resolve) => {
      let failed = false;
      let received = false;
      const watch = new Watch(this.options.kubeConfig);
      const params: Record<string, string | boolean> = { allowWatchBookmarks: true };
      if (this.resourceVersion) params.resourceVersion = this.resourceVersion;
      void watch
        .watch(
          this.options.path,
          params,
          (phase, obj: T & { code?: number }) => {
            received = true;
            if (phase === 'ERROR') {
              failed = true;
              return;
            }
            const rv = obj?.metadata?.resourceVersion;
            if (rv) this.resourceVersion = rv;
            if (phase === 'BOOKMARK') return;
            const key = keyOf(obj);
            if (phase === 'DELETED') this.objects.delete(key);
            else this.objects.set(key, obj);
            this.emit(phase as InformerEvent, obj);
          },
          (err: unknown) => {
            if (err && !this.stopped) {
              this.options.onError?.(`watch ${this.options.path} ended: ${String(err)}`);
              failed = true;
            }
            resolve(failed ? 'failed' : received ? 'ended' : 'empty');
          },
        )
        .then((abort) => {
          this.watchAbort = abort;
          if (this.stopped) abort.abort();
        });
    });
  }
}

/** `namespace/name` for namespaced objects, `name` otherwise (cache.MetaNamespaceKeyFunc). */
export function keyOf(obj: Meta | undefined): string {
  const ns = obj?.metadata?.namespace;
  const name = obj?.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}
