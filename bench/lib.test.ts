import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drive } from './lib.js';

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

/** A server answering `ok` that counts the connections it accepted. */
async function counting(): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  server = createServer((_req, res) => res.end('ok'));
  server.on('connection', () => n++);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, connections: () => n };
}

// hostPace.ts times requests made each on a new connection, as the suite's clients make many.
describe('drive', () => {
  it('sends every request on one kept-alive connection by default', async () => {
    const s = await counting();
    expect(await drive(s.url, {}, 20)).toBeGreaterThan(0);
    expect(s.connections()).toBe(1);
  });

  it('opens a connection per request with keepAlive off', async () => {
    const s = await counting();
    expect(await drive(s.url, {}, 20, { keepAlive: false })).toBeGreaterThan(0);
    expect(s.connections()).toBe(20);
  });
});
