import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { seededRandom, VirtualClock } from 'uproot';
import type { Rendering } from '../http/output.js';
import { builtinKinds } from '../registry/builtin-kinds.js';
import { ResourceRegistry } from '../registry/resource-registry.js';
import { parseFieldSelector } from '../selectors/field-selector.js';
import { parseLabelSelector } from '../selectors/label-selector.js';
import { ObjectStore } from '../store/object-store.js';
import { WatchHub, type WatchRequest, type WatchStart } from './watch-hub.js';

/** Just enough of a ServerResponse to record what a watch stream writes, write by write. */
class FakeResponse {
  readonly writes: Buffer[] = [];
  ended = false;
  destroyed = false;
  writableLength = 0;
  private readonly listeners: (() => void)[] = [];

  writeHead(): this {
    return this;
  }
  flushHeaders(): void {}
  write(data: Buffer | string): boolean {
    // Kept as given, so tests can see that streams share one Buffer.
    this.writes.push(typeof data === 'string' ? Buffer.from(data) : data);
    return true;
  }
  end(data?: string): void {
    if (data) this.writes.push(Buffer.from(data));
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
    for (const l of this.listeners) l();
  }
  on(event: string, listener: () => void): this {
    if (event === 'close') this.listeners.push(listener);
    return this;
  }
  /** The connection: a group's shared turn arrives on it as one pre-framed HTTP chunk (kept as given too). */
  get socket(): {
    setNoDelay(): void;
    write(chunk: Buffer): boolean;
    destroyed: boolean;
    writableLength: number;
  } {
    return {
      setNoDelay: () => undefined,
      write: (chunk: Buffer) => this.write(chunk),
      destroyed: this.destroyed,
      writableLength: this.writableLength,
    };
  }
  /** Every event line received so far, parsed (HTTP chunk framing removed). */
  events(): { type: string; object: { metadata?: { name?: string }; rows?: unknown[] } }[] {
    const unframe = (b: Buffer): Buffer => {
      const m = /^([0-9a-f]+)\r\n/.exec(b.subarray(0, 20).toString('latin1'));
      return m ? b.subarray(m[0].length, m[0].length + parseInt(m[1]!, 16)) : b;
    };
    return Buffer.concat(this.writes.map(unframe))
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; object: { metadata?: { name?: string } } });
  }
}

function setup(bookmarkIntervalMs = 60_000): {
  store: ObjectStore;
  hub: WatchHub;
  clock: VirtualClock;
  watch(options?: {
    labels?: string;
    rendering?: Rendering;
    bookmarks?: boolean;
    timeoutMs?: number;
    start?: WatchStart;
  }): FakeResponse;
} {
  const registry = new ResourceRegistry();
  for (const t of builtinKinds()) registry.add(t);
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
  const store = new ObjectStore(registry, { clock, random: seededRandom(5), watchWindow: 1000 });
  const hub = new WatchHub(store, registry, clock, bookmarkIntervalMs);
  const nodes = registry.resolve('v1/nodes');
  return {
    store,
    hub,
    clock,
    watch(options = {}) {
      const res = new FakeResponse();
      const request: WatchRequest = {
        resourceType: nodes,
        namespace: '',
        labelSelector: parseLabelSelector(options.labels),
        fieldSelector: parseFieldSelector(undefined, store.fieldGetters(nodes)),
        rendering: options.rendering ?? { kind: 'object' },
        allowBookmarks: options.bookmarks ?? false,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      };
      hub.open(
        request,
        options.start ?? { from: 'rv', rv: store.currentRevision },
        res as unknown as ServerResponse,
      );
      return res;
    },
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const names = (res: FakeResponse): string[] =>
  res.events().map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`);

describe('WatchHub fan-out', () => {
  it('sends every stream of one selection the same Buffer, once per turn however many events', async () => {
    const { store, watch } = setup();
    const streams = [watch(), watch(), watch()];
    await turn();
    for (let i = 0; i < 5; i++) store.create('v1/nodes', { metadata: { name: `n${i}` } });
    await turn();
    const [first, ...others] = streams.map((s) => s.writes);
    expect(first).toHaveLength(1);
    for (const writes of others) {
      expect(writes).toHaveLength(1);
      // The same Buffer object: serialised and joined once for the group.
      expect(writes[0]).toBe(first![0]);
    }
    expect(names(streams[0]!)).toEqual(['ADDED n0', 'ADDED n1', 'ADDED n2', 'ADDED n3', 'ADDED n4']);
  });

  it('gives a stream opened mid-turn its replay and later events, without the turn’s earlier events twice', async () => {
    const { store, watch } = setup();
    const early = watch();
    store.create('v1/nodes', { metadata: { name: 'a' } });
    const late = watch({ start: { from: 'now-with-state', initialEventsEnd: false } });
    store.create('v1/nodes', { metadata: { name: 'b' } });
    await turn();
    expect(names(early)).toEqual(['ADDED a', 'ADDED b']);
    expect(names(late)).toEqual(['ADDED a', 'ADDED b']);
    store.patch('v1/nodes', undefined, 'a', 'merge', { metadata: { labels: { x: '1' } } });
    await turn();
    expect(names(late)).toEqual(['ADDED a', 'ADDED b', 'MODIFIED a']);
    expect(late.writes.at(-1)).toBe(early.writes.at(-1));
  });

  it('keeps selections apart: objects entering and leaving a label selection are ADDED and DELETED', async () => {
    const { store, watch } = setup();
    const all = watch();
    const workers = watch({ labels: 'role=worker' });
    await turn();
    store.create('v1/nodes', { metadata: { name: 'n', labels: { role: 'control' } } });
    store.patch('v1/nodes', undefined, 'n', 'merge', { metadata: { labels: { role: 'worker' } } });
    store.patch('v1/nodes', undefined, 'n', 'merge', { metadata: { labels: { role: 'control' } } });
    await turn();
    expect(names(all)).toEqual(['ADDED n', 'MODIFIED n', 'MODIFIED n']);
    expect(names(workers)).toEqual(['ADDED n', 'DELETED n']);
  });

  it('encodes tables separately from objects, once per table stream group', async () => {
    const { store, watch } = setup();
    const table: Rendering = { kind: 'table', apiVersion: 'meta.k8s.io/v1', include: 'None' };
    const [t1, t2, plain] = [watch({ rendering: table }), watch({ rendering: table }), watch()];
    await turn();
    store.create('v1/nodes', { metadata: { name: 'n' } });
    await turn();
    expect(t1.writes[0]).toBe(t2.writes[0]);
    expect(t1.events()[0]!.object).toMatchObject({ kind: 'Table', rows: [expect.anything()] });
    expect(plain.events()[0]!.object).toMatchObject({ kind: 'Node', metadata: { name: 'n' } });
  });

  it('sends bookmarks to the streams that asked for them, between their events', async () => {
    const { store, watch, clock } = setup(1000);
    const withBookmarks = watch({ bookmarks: true });
    const without = watch();
    await turn();
    store.create('v1/nodes', { metadata: { name: 'a' } });
    await clock.advanceBy(1000);
    store.create('v1/nodes', { metadata: { name: 'b' } });
    await turn();
    expect(names(withBookmarks)).toEqual(['ADDED a', 'BOOKMARK ', 'ADDED b']);
    expect(withBookmarks.events()[1]!.object).toMatchObject({
      kind: 'Node',
      metadata: { resourceVersion: '1' },
    });
    expect(names(without)).toEqual(['ADDED a', 'ADDED b']);
  });

  it('ends a timed-out stream cleanly after sending what it was owed, and keeps its group serving', async () => {
    const { store, watch, clock, hub } = setup();
    const short = watch({ timeoutMs: 5000 });
    const long = watch();
    await turn();
    expect(hub.size).toBe(2);
    store.create('v1/nodes', { metadata: { name: 'a' } });
    await clock.advanceBy(5000);
    expect(short.ended).toBe(true);
    expect(names(short)).toEqual(['ADDED a']);
    store.create('v1/nodes', { metadata: { name: 'b' } });
    await turn();
    expect(names(long)).toEqual(['ADDED a', 'ADDED b']);
    expect(names(short)).toEqual(['ADDED a']);
    expect(hub.size).toBe(1);
  });

  it('ends a stream whose client fell more than 4 MiB behind, and forgets closed streams', async () => {
    const { store, watch, hub } = setup();
    const slow = watch();
    const fine = watch();
    await turn();
    slow.writableLength = 5 * 1024 * 1024;
    store.create('v1/nodes', { metadata: { name: 'a' } });
    await turn();
    expect(slow.ended).toBe(true);
    expect(fine.ended).toBe(false);
    fine.destroy();
    expect(hub.size).toBe(0);
    store.create('v1/nodes', { metadata: { name: 'b' } });
    await turn();
    expect(names(fine)).toEqual(['ADDED a']);
  });

  it('answers a compacted resourceVersion with one ERROR line and no stream', () => {
    const { store, watch, hub } = setup();
    for (let i = 0; i < 1100; i++) store.create('v1/nodes', { metadata: { name: `n${i}` } });
    const res = watch({ start: { from: 'rv', rv: 1 } });
    expect(res.ended).toBe(true);
    expect(res.events()).toEqual([
      { type: 'ERROR', object: expect.objectContaining({ code: 410, reason: 'Expired' }) },
    ]);
    expect(hub.size).toBe(0);
  });
});
