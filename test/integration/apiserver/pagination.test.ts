import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from './harness.js';

describe('paged lists over HTTP', () => {
  let sb: Sandbox;
  let core: k8s.CoreV1Api;

  beforeAll(async () => {
    sb = await startSandbox({ watchWindow: 5_000 });
    core = sb.client().makeApiClient(k8s.CoreV1Api);
    for (let i = 0; i < 1_250; i++) {
      sb.server.store.create('configmaps', {
        metadata: {
          name: `cm-${String(i).padStart(4, '0')}`,
          namespace: 'default',
          labels: { even: String(i % 2 === 0) },
        },
        data: { i: String(i) },
      });
    }
  });

  afterAll(async () => {
    await sb.close();
  });

  it('serves a consistent snapshot while objects change between pages', async () => {
    const expected = (await core.listNamespacedConfigMap({ namespace: 'default' })).items.map(
      (c) => `${c.metadata?.name}@${c.metadata?.resourceVersion}`,
    );
    expect(expected).toHaveLength(1_250);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    let snapshotRv: string | undefined;
    do {
      const page = await core.listNamespacedConfigMap({
        namespace: 'default',
        limit: 300,
        ...(token ? { _continue: token } : {}),
      });
      pages++;
      snapshotRv ??= page.metadata?.resourceVersion;
      expect(page.metadata?.resourceVersion).toBe(snapshotRv);
      seen.push(...page.items.map((c) => `${c.metadata?.name}@${c.metadata?.resourceVersion}`));
      token = page.metadata?._continue;
      // Writers between pages: delete ahead of the cursor, add ahead of it, and rewrite what is still to come.
      const store = sb.server.store;
      store.delete('configmaps', 'default', `cm-${String(1_000 + pages).padStart(4, '0')}`);
      store.create('configmaps', { metadata: { name: `cm-0999-new-${pages}`, namespace: 'default' } });
      store.patch('configmaps', 'default', `cm-${String(1_100 + pages).padStart(4, '0')}`, 'merge', {
        data: { changed: 'yes' },
      });
    } while (token);
    expect(pages).toBe(5);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('pages with selectors and answers 410 Expired for a compacted continue token', async () => {
    const first = await core.listNamespacedConfigMap({
      namespace: 'default',
      limit: 100,
      labelSelector: 'even=true',
    });
    expect(first.items.every((c) => c.metadata?.labels?.even === 'true')).toBe(true);
    expect(first.metadata?._continue).toBeDefined();
    for (let i = 0; i < 5_001; i++)
      sb.server.store.patch('configmaps', 'default', 'cm-0000', 'merge', { data: { n: String(i) } });
    try {
      await core.listNamespacedConfigMap({
        namespace: 'default',
        limit: 100,
        labelSelector: 'even=true',
        _continue: first.metadata!._continue!,
      });
      expect.unreachable();
    } catch (e) {
      const err = e as k8s.ApiException<string>;
      expect(err.code).toBe(410);
      expect(JSON.parse(err.body)).toMatchObject({
        reason: 'Expired',
        message: expect.stringContaining('The provided continue parameter is too old'),
      });
    }
  });
});
