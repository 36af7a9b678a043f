import { describe, expect, it } from 'vitest';
import { ManualClock, oneClock } from '../core/clock.js';
import { DEMO_US, exchangeToken, http, OTHER_US } from '../testing/http.js';
import type { TestServer } from '../testing/testServer.js';
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

describe('RateLimiter', () => {
  it('slides: a slot frees up exactly when the oldest request leaves the window', () => {
    const clock = new ManualClock();
    const rl = new RateLimiter(oneClock(clock), 3, 10_000);
    expect([rl.take('a'), rl.take('a')]).toEqual([0, 0]);
    clock.advance(4000);
    expect(rl.take('a')).toBe(0);
    expect(rl.take('a')).toBe(6);
    clock.advance(6000);
    // Both requests of t=0 left the window; the one of t=4 s stays for 4 more seconds.
    expect([rl.take('a'), rl.take('a')]).toEqual([0, 0]);
    expect(rl.take('a')).toBe(4);
    expect(rl.take('b')).toBe(0);
  });
});
