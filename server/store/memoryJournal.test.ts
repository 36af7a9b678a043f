import { describe, expect, it } from 'vitest';
import { Journal } from './memoryJournal.js';
import { type DeferredEntry, unverifiedRing } from './store.js';

/** An entry as the recorder defers it, holding about `bytes`. */
const entry = (clientId: string, bytes = 1000, unverified = true): DeferredEntry => ({
  operation: 'getPartnerToken',
  status: 401,
  client_id: clientId,
  unverified,
  method: 'POST',
  rawPath: '/developer/api/oauth/partner/access-token',
  retainedBytes: bytes,
  build: () => ({
    time: new Date(0).toISOString(),
    operation: 'getPartnerToken',
    method: 'POST',
    path: '/developer/api/oauth/partner/access-token',
    status: 401,
    latency_ms: 1,
    client_id: clientId,
    unverified,
    headers: {},
    fault_id: null,
  }),
});

describe('the unverified entries of every app together (issue 30 item 2)', () => {
  it('keep at most the bound in entries, however many apps are claimed, the oldest dropped first', async () => {
    const j = new Journal(1000, { entries: 500, bytes: 1024 ** 3 });
    for (let app = 0; app < 40; app++) j.add(entry(`app-${app}`, 100, false), 0, `app-${app}`);
    for (let i = 0; i < 40 * 200; i++) {
      const app = `app-${i % 40}`;
      j.add(entry(app), i, unverifiedRing(app));
    }
    const kept = await j.list({ unverified: true, limit: 100_000 });
    expect(kept).toHaveLength(500);
    // The newest 500, over every app.
    expect(kept.at(-1)!.id).toBe(`req_${String(40 + 40 * 200 - 499).padStart(6, '0')}`);
    expect(j.unverified).toEqual({ entries: 500, bytes: 500 * 1000 });
    // The apps' own entries are not touched.
    expect(await j.list({ unverified: false, limit: 100_000 })).toHaveLength(40);
  });

  it('keep at most the bound in bytes', async () => {
    const j = new Journal(1000, { entries: 1_000_000, bytes: 64 * 1024 });
    for (let i = 0; i < 5000; i++) j.add(entry(`app-${i % 50}`, 4096), i, unverifiedRing(`app-${i % 50}`));
    expect(j.unverified).toEqual({ entries: 16, bytes: 16 * 4096 });
    expect(await j.list({ unverified: true, limit: 100 })).toHaveLength(16);
  });

  it('count what a full ring overwrites and what clearing an app drops', async () => {
    const j = new Journal(3, { entries: 100, bytes: 1024 ** 3 });
    for (let i = 0; i < 10; i++) j.add(entry('a'), i, unverifiedRing('a'));
    for (let i = 0; i < 2; i++) j.add(entry('b'), i, unverifiedRing('b'));
    expect(j.unverified.entries).toBe(5);
    await j.clear('a');
    expect(j.unverified).toEqual({ entries: 2, bytes: 2000 });
    await j.clear();
    expect(j.unverified.entries).toBe(0);
  });
});
