import { describe, expect, it } from 'vitest';
import { startTestServer } from '../server/testing/testServer.js';
import { SOAK_APPS, SoakTraffic } from './soakTraffic.js';

// A smoke test of the soak's traffic against an in-process simulator: every kind of flow,
// for both apps, answers as documented. The real run is `npm run soak` (child process, 60 s).
describe('soak traffic', () => {
  it('runs every flow for both apps without an error, counting its requests', async () => {
    const sim = await startTestServer();
    const traffic = new SoakTraffic(`${sim.url}/developer/api`, 8);
    try {
      await Promise.all(Array.from({ length: 16 }, (_, n) => traffic.flow(n, SOAK_APPS[Math.floor(n / 8)]!)));
      expect(traffic.stats.samples).toEqual([]);
      expect(traffic.stats.errors).toBe(0);
      // 16 flows: tokens (2), binding (1), upload (3), transcription (2, or 5 with an upload).
      expect(traffic.stats.requests).toBeGreaterThanOrEqual(16 * 2);
      expect(await sim.services.storage.files.count()).toBeGreaterThanOrEqual(4);
      expect((await sim.services.transcriptions.list()).length).toBe(4);
    } finally {
      traffic.close();
      await sim.stop();
    }
  });

  it('counts an answer that is not the documented success as an error', async () => {
    const sim = await startTestServer();
    const traffic = new SoakTraffic(`${sim.url}/developer/api`, 2);
    try {
      await traffic.flow(0, { ...SOAK_APPS[0], secret_key: 'wrong' } as unknown as (typeof SOAK_APPS)[0]);
      expect(traffic.stats.errors).toBe(1);
      expect(traffic.stats.samples[0]).toMatch(/token: 401/);
    } finally {
      traffic.close();
      await sim.stop();
    }
  });
});
