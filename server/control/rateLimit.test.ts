import { describe, expect, it } from 'vitest';
import { ManualClock, oneClock } from '../core/clock.js';
import { MemoryStore } from '../store/memoryStore.js';
import { DEMO_US, exchangeToken, http, OTHER_US } from '../testing/http.js';
import type { TestServer } from '../testing/testServer.js';
import { externalUrl, poll, submit } from '../testing/transcriptionKit.js';
import { useTestServers } from '../testing/useTestServers.js';
import { RateLimiter } from './rateLimiter.js';

const servers = useTestServers();
const start = servers.start;
const exchange = (s: TestServer, app = DEMO_US) => exchangeToken(s.api, app);

describe('--live-rate-limits', () => {
  it('allows 10 token exchanges per minute per client id, then 429 with Retry-After', async () => {
    const s = await start({ liveRateLimits: true });
    for (let i = 0; i < 10; i++) expect((await exchange(s)).status, `request ${i + 1}`).toBe(200);
    const limited = await exchange(s);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ detail: 'RATE_LIMITED' });
    const wait = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(wait) && wait >= 1 && wait <= 60).toBe(true);
    // Another client id has its own window.
    expect((await exchange(s, OTHER_US)).status).toBe(200);
    // Waiting as told (on the simulated clock) lets the client in again.
    await http('POST', `${s.admin}/clock`, { json: { advance_ms: wait * 1000 } });
    expect((await exchange(s)).status).toBe(200);
  });

  it('is off by default', async () => {
    const s = await start();
    for (let i = 0; i < 12; i++) expect((await exchange(s)).status).toBe(200);
  });

  it('forgets an app window on a per-app reset', async () => {
    const s = await start({ liveRateLimits: true });
    for (let i = 0; i < 10; i++) await exchange(s);
    expect((await exchange(s)).status).toBe(429);
    await http('POST', `${s.admin}/reset`, { json: { client_id: DEMO_US.client_id } });
    expect((await exchange(s)).status).toBe(200);
  });
});

describe('--live-rate-limits on the transcription API', () => {
  const task = (s: TestServer, app = DEMO_US) => submit(s, { file_url: externalUrl() }, app);
  const clock = (s: TestServer, json: object) => http('POST', `${s.admin}/clock`, { json });

  it('allows 60 requests per minute per client id (submit and poll alike), then 429 with Retry-After', async () => {
    const s = await start({ liveRateLimits: true });
    // Frozen: every request lands at the same simulated instant, so the numbers are exact.
    await clock(s, { freeze: true });
    const id = (await task(s)).body.transcription_id;
    for (let i = 2; i <= 60; i++) {
      const r = i % 2 ? await task(s) : await poll(s, id);
      expect(r.status, `request ${i}`).toBe(200);
    }
    const limited = await poll(s, id);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ detail: 'RATE_LIMITED' });
    expect(limited.headers.get('retry-after')).toBe('60');
    expect((await task(s)).status).toBe(429);
    // Other windows are untouched: another client id, and this client's token exchange.
    expect((await task(s, OTHER_US)).status).toBe(200);
    expect((await exchange(s)).status).toBe(200);
    // One millisecond short of the minute the window is still full; then it slides open.
    await clock(s, { advance_ms: 59_999 });
    const almost = await poll(s, id);
    expect([almost.status, almost.headers.get('retry-after')]).toEqual([429, '1']);
    await clock(s, { advance_ms: 1 });
    expect((await poll(s, id)).status).toBe(200);
  });

  it("answers the 429 in the app's error shape", async () => {
    const s = await start({ liveRateLimits: true });
    await clock(s, { freeze: true });
    const made = await http('POST', `${s.admin}/apps`, { json: { region: 'us', error_shape: 'live' } });
    const app = made.body as typeof DEMO_US;
    for (let i = 1; i <= 60; i++) expect((await task(s, app)).status, `request ${i}`).toBe(200);
    const limited = await task(s, app);
    expect(limited.status).toBe(429);
    // The live partner endpoints' shape: {code: <HTTP status>, message}.
    expect(limited.body).toEqual({ code: 429, message: expect.stringMatching(/^RATE_LIMITED: At most 60 /) });
    expect(limited.headers.get('retry-after')).toBe('60');
  });

  it('is off by default', async () => {
    const s = await start();
    await clock(s, { freeze: true });
    for (let i = 1; i <= 61; i++) expect((await task(s)).status, `request ${i}`).toBe(200);
  });
});

describe('RateLimiter', () => {
  it('slides: a slot frees up exactly when the oldest request leaves the window', async () => {
    const clock = new ManualClock();
    const rl = new RateLimiter(new MemoryStore(), oneClock(clock));
    const L = { group: 'g', limit: 3, windowMs: 10_000 };
    expect(await Promise.all([rl.take('a', L), rl.take('a', L)])).toEqual([0, 0]);
    clock.advance(4000);
    expect(await rl.take('a', L)).toBe(0);
    expect(await rl.take('a', L)).toBe(6);
    clock.advance(6000);
    // Both requests of t=0 left the window; the one of t=4 s stays for 4 more seconds.
    expect(await Promise.all([rl.take('a', L), rl.take('a', L)])).toEqual([0, 0]);
    expect(await rl.take('a', L)).toBe(4);
    expect(await rl.take('b', L)).toBe(0);
    // Another group of the same client has its own window.
    expect(await rl.take('a', { ...L, group: 'h' })).toBe(0);
  });

  it('keeps one record per client id and group, and a per-app reset drops only that app', async () => {
    const store = new MemoryStore();
    const rl = new RateLimiter(store, oneClock(new ManualClock()));
    const L = { group: 'g', limit: 3, windowMs: 10_000 };
    await Promise.all([rl.take('a', L), rl.take('a', { ...L, group: 'h' }), rl.take('b', L)]);
    const windows = store.collection('rateWindows');
    expect((await windows.page(undefined, 10)).map(([id]) => id)).toEqual(['a/g', 'a/h', 'b/g']);
    await rl.resetApp('a');
    expect((await windows.page(undefined, 10)).map(([id]) => id)).toEqual(['b/g']);
  });
});
