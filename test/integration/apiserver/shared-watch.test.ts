import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node, startSandbox, type Sandbox } from './harness.js';

/** Streams of one selection share each turn's pre-framed chunk: real clients must decode it. */
describe('watch streams sharing one selection', () => {
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await startSandbox();
  });

  afterAll(async () => {
    await sb.close();
  });

  it('delivers every event, in order, to each of several client-node watches', async () => {
    const watch = new k8s.Watch(sb.client());
    const rv = sb.server.store.resourceVersion;
    const received: string[][] = [[], [], []];
    const streams: Promise<AbortController>[] = [];
    const reached = new Map<string, () => void>();
    const count = (n: number) =>
      Promise.all(
        received.map((names, i) =>
          names.length >= n ? undefined : new Promise<void>((r) => reached.set(`${i}:${n}`, r)),
        ),
      );
    received.forEach((names, i) => {
      const seen = (type: string, obj: k8s.V1Node): void => {
        names.push(`${type} ${obj.metadata?.name}`);
        reached.get(`${i}:${names.length}`)?.();
      };
      streams.push(watch.watch('/api/v1/nodes', { resourceVersion: rv }, seen, () => undefined));
    });
    const controllers = await Promise.all(streams);
    // Every stream is open (the server counts it) before the changes start.
    await expect.poll(() => sb.server.stats().openWatches).toBe(3);
    // Two turns, so each stream decodes a second shared chunk after the first.
    for (const name of ['a', 'b', 'c']) sb.server.store.create('nodes', node(name));
    await count(3);
    for (const name of ['a', 'b', 'c']) sb.server.store.delete('nodes', undefined, name);
    await count(6);
    for (const c of controllers) c.abort();
    const expected = ['ADDED a', 'ADDED b', 'ADDED c', 'DELETED a', 'DELETED b', 'DELETED c'];
    for (const names of received) expect(names).toEqual(expected);
  });
});
