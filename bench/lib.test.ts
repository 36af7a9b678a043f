import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { scaledBudget } from '../server/testing/scaledBudget.js';
import { duringLine, paceDuring } from './hostPace.js';
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

// hostPace.ts times requests made each on a new connection, as the suite's clients make many,
// and samples the host's pace during a run.
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

describe('paceDuring', () => {
  it('samples a fixed computation in CPU seconds until stopped, and says so in one line', async () => {
    const sampler = paceDuring(20);
    // Each sample is ~30 ms of computation after a 20 ms timer: 300 ms hold 3 on a busy host
    // only when stretched (2 samples came in 300 ms beside two busy loops).
    await new Promise((r) => setTimeout(r, scaledBudget(300)));
    const samples = sampler.stop();
    expect(samples.length).toBeGreaterThanOrEqual(3);
    for (const s of samples) expect(s).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(sampler.stop()).toHaveLength(samples.length);
    expect(duringLine(0.02, [0.02, 0.03, 0.025])).toBe(
      'a fixed computation took 25 ms of CPU during the run (median of 3, 20-30 ms), 20 ms before it',
    );
    expect(duringLine(0.02, [])).toBe('no samples during the run');
  });
});
