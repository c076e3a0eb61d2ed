import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { clockFromEnvironment } from './followed-clock.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback clock endpoint answering `body` (the sandbox's GET /v1/clock shape). */
async function serve(body: () => unknown): Promise<string> {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body()));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1/clock`;
}

describe('clockFromEnvironment', () => {
  it('is undefined without UPROOT_CLOCK_URL', async () => {
    expect(await clockFromEnvironment({})).toBeUndefined();
    expect(await clockFromEnvironment({ UPROOT_CLOCK_URL: ' ' })).toBeUndefined();
  });

  it("follows the endpoint's time over HTTP", async () => {
    const twinNow = Date.parse('2030-01-01T00:00:00Z');
    const clock = await clockFromEnvironment({ UPROOT_CLOCK_URL: await serve(() => ({ nowMs: twinNow })) });
    try {
      expect(clock?.now()).toBe(twinNow);
    } finally {
      clock?.close();
    }
  });

  it('refuses an endpoint that answers something else, as unreachable (exit 2, the environment)', async () => {
    const url = await serve(() => ({ time: 'noon' }));
    await expect(clockFromEnvironment({ UPROOT_CLOCK_URL: url })).rejects.toMatchObject({
      code: 'UP-CLOCK-UNREACHABLE',
      source: 'environment',
      exitCode: 2,
      location: { field: 'UPROOT_CLOCK_URL', value: url },
    });
  });

  it('refuses a URL that is not http(s), as the user’s input', async () => {
    await expect(clockFromEnvironment({ UPROOT_CLOCK_URL: 'not a url' })).rejects.toMatchObject({
      code: 'UP-CLOCK-URL',
      source: 'user',
      location: { field: 'UPROOT_CLOCK_URL', value: 'not a url' },
    });
  });
});
