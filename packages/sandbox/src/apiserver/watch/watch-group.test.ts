import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { builtinKinds } from '../registry/builtin-kinds.js';
import { EVERYTHING } from '../selectors/label-selector.js';
import { parseFieldSelector } from '../selectors/field-selector.js';
import { Watcher, WatchGroup } from './watch-group.js';
import type { WatchRequest } from './watch-request.js';

const nodes = builtinKinds().find((t) => t.resource === 'nodes' && t.group === '')!;
const request: WatchRequest = {
  resourceType: nodes,
  namespace: '',
  labelSelector: EVERYTHING,
  fieldSelector: parseFieldSelector(undefined, {}),
  rendering: { kind: 'object' },
  allowBookmarks: true,
};

function stream(): { watcher: Watcher; text: () => string; writes: number } {
  const chunks: Buffer[] = [];
  const res = {
    destroyed: false,
    writableLength: 0,
    write: (b: Buffer) => chunks.push(b) > 0,
    end: () => undefined,
    destroy: () => undefined,
  };
  const watcher = new Watcher(request, res as unknown as ServerResponse);
  return {
    watcher,
    text: () => Buffer.concat(chunks).toString(),
    get writes() {
      return chunks.length;
    },
  };
}

const line = (s: string): Buffer => Buffer.from(`${s}\n`);

describe('WatchGroup', () => {
  it('slots a stream’s own line after the lines the group queued before it, in one write', () => {
    const group = new WatchGroup('k', request, () => undefined);
    const [a, b] = [stream(), stream()];
    group.join(a.watcher, []);
    group.join(b.watcher, []);
    group.flush();
    group.push(line('A'));
    group.pushOwn(a.watcher, line('BOOKMARK'));
    group.push(line('B'));
    group.flush();
    expect(a.text()).toBe('A\nBOOKMARK\nB\n');
    expect(b.text()).toBe('A\nB\n');
    expect([a.writes, b.writes]).toEqual([1, 1]);
    // Next turn both share the group's batch again.
    group.push(line('C'));
    group.flush();
    expect(a.text()).toBe('A\nBOOKMARK\nB\nC\n');
    expect(b.text()).toBe('A\nB\nC\n');
  });

  it('tells the hub when its last stream leaves', () => {
    const left: WatchGroup[] = [];
    const group = new WatchGroup('k', request, (g) => left.push(g));
    const [a, b] = [stream(), stream()];
    group.join(a.watcher, [line('replay')]);
    group.join(b.watcher, []);
    group.close(a.watcher, true);
    expect(a.text()).toBe('replay\n');
    expect(left).toEqual([]);
    group.close(b.watcher, false);
    expect(left).toEqual([group]);
    expect(a.watcher.closed && b.watcher.closed).toBe(true);
  });
});
