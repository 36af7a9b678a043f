import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { Random } from '../core/random.js';
import { MemoryStore } from '../store/memoryStore.js';
import { DEMO_US, exchangeToken, http } from '../testing/http.js';
import type { TestServer } from '../testing/testServer.js';
import { useTestServers } from '../testing/useTestServers.js';
import { FaultService } from './faults.js';

// Fault rules across servers: seeded probability, persistence, transcription outcomes, and
// shutdown with a hung request. Each test starts the servers it needs.

const servers = useTestServers();
const start = servers.start;

const exchange = (s: TestServer) => exchangeToken(s.api, DEMO_US);

/** 40 token requests under a p=0.5 rule: the hit (503) / miss (200) sequence as a string. */
async function sequence(seed: string): Promise<string> {
  const s = await start({ seed });
  const f = await http('POST', `${s.admin}/faults`, {
    json: { operation: 'getPartnerToken', status: 503, probability: 0.5 },
  });
  expect(f.status).toBe(201);
  let out = '';
  for (let i = 0; i < 40; i++) out += (await exchange(s)).status === 503 ? 'x' : '.';
  const hits = (await http('GET', `${s.admin}/faults`)).body[0].hits;
  expect(hits).toBe(out.split('x').length - 1);
  return out;
}

describe('probability', () => {
  it('gives the same hit/miss sequence for the same seed, another for another seed', async () => {
    const a = await sequence('ci-seed-1');
    const b = await sequence('ci-seed-1');
    const c = await sequence('ci-seed-2');
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    const hits = a.split('x').length - 1;
    expect(hits).toBeGreaterThan(5);
    expect(hits).toBeLessThan(35);
  });
});

describe('persistence', () => {
  it('keeps rules and their remaining count across a restart', async () => {
    const dir = await servers.tempDir();
    const a = await start({ inMemory: false, dataDir: dir });
    await http('POST', `${a.admin}/faults`, {
      json: { operation: 'getPartnerToken', status: 503, times: 3 },
    });
    expect((await exchange(a)).status).toBe(503);
    await a.stop();
    const b = await start({ inMemory: false, dataDir: dir });
    expect((await http('GET', `${b.admin}/faults`)).body[0]).toMatchObject({ remaining: 2, hits: 1 });
    expect([(await exchange(b)).status, (await exchange(b)).status, (await exchange(b)).status]).toEqual([
      503, 503, 200,
    ]);
  });
});

describe('transcription outcomes', () => {
  const headers = { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key };
  const submit = (s: TestServer) =>
    http('POST', `${s.api}/open/partner/ai/transcriptions/`, {
      headers,
      json: { file_url: 'https://example.com/audio/meeting.mp3' },
    });
  const status = async (s: TestServer, id: string) =>
    (await http('GET', `${s.api}/open/partner/ai/transcriptions/${id}`, { headers })).body;

  it('ends the next tasks of an app in FAILURE or REVOKED, or keeps them in a state', async () => {
    const s = await start({ transcriptionDelay: 1000 });
    const rule = (json: Record<string, unknown>) =>
      http('POST', `${s.admin}/faults`, { json: { operation: 'createTranscription', times: 1, ...json } });
    await rule({ transcription_outcome: 'FAILURE', message: 'Unsupported audio codec' });
    const failed = (await submit(s)).body;
    await rule({ transcription_outcome: 'REVOKED' });
    const revoked = (await submit(s)).body;
    await rule({ transcription_outcome: 'PROGRESS' });
    const stuck = (await submit(s)).body;
    const normal = (await submit(s)).body;
    expect(failed.status).toBe('PENDING');
    await http('POST', `${s.admin}/clock`, { json: { advance_ms: 60_000 } });
    expect(await status(s, failed.transcription_id)).toMatchObject({
      status: 'FAILURE',
      message: 'Unsupported audio codec',
    });
    expect((await status(s, revoked.transcription_id)).status).toBe('REVOKED');
    expect((await status(s, stuck.transcription_id)).status).toBe('PROGRESS');
    expect((await status(s, normal.transcription_id)).status).toBe('SUCCESS');
  });

  it('scopes outcome rules to one app with match.client_id', async () => {
    const s = await start({ transcriptionDelay: 0 });
    await http('POST', `${s.admin}/faults`, {
      json: {
        operation: 'createTranscription',
        transcription_outcome: 'FAILURE',
        match: { client_id: 'other-partner-us' },
      },
    });
    const mine = (await submit(s)).body;
    expect((await status(s, mine.transcription_id)).status).toBe('SUCCESS');
  });
});

describe('shutdown', () => {
  it('does not wait for a hung request', async () => {
    const s = await start();
    await http('POST', `${s.admin}/faults`, { json: { operation: 'getPartnerToken', action: 'hang' } });
    const pending = exchange(s).catch((e: Error) => e);
    for (let i = 0; i < 50; i++) {
      if ((await http('GET', `${s.admin}/faults`)).body[0].hits > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const t0 = performance.now();
    await s.stop();
    // Without releasing held responses, close waits the 2 s grace period.
    expect(performance.now() - t0).toBeLessThan(1800);
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('FaultService counts', () => {
  it('fires a rule with times: 5 exactly 5 times across instances sharing a store, then the next rule', async () => {
    const store = new MemoryStore();
    const make = (seed: string) =>
      new FaultService(store, new ManualClock(), new Random(seed), () => new Set(['op']));
    const [a, b] = [make('a'), make('b')];
    const limited = await a.create({ operation: 'op', status: 503, times: 5 });
    const fallback = await b.create({ operation: 'op', status: 500 });
    const picks = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).pick({ operation: 'op', path: '/' })),
    );
    expect(picks.filter((p) => p?.id === limited.id)).toHaveLength(5);
    expect(picks.filter((p) => p?.id === fallback.id)).toHaveLength(7);
    expect(a.page({ limit: 100 }).items.map((r) => [r.remaining, r.hits])).toEqual([
      [0, 5],
      [null, 7],
    ]);
  });

  it('passes over a rule another instance used up after this one read it, to the next candidate', async () => {
    const store = new MemoryStore();
    const svc = new FaultService(store, new ManualClock(), new Random('s'), () => new Set(['op']));
    const once = await svc.create({ operation: 'op', status: 503, times: 1 });
    const next = await svc.create({ operation: 'op', status: 500 });
    const rules = store.mirrored<{ remaining: number | null }>('faults');
    const update = rules.update.bind(rules);
    // The other instance's hit lands between this one's read of the mirror and its update.
    rules.update = async (id, fn) => {
      if (id === once.id) await rules.put(id, { ...rules.peek(id)!, remaining: 0 });
      return update(id, fn);
    };
    expect((await svc.pick({ operation: 'op', path: '/' }))?.id).toBe(next.id);
    expect(svc.page({ limit: 100 }).items.map((r) => r.hits)).toEqual([0, 1]);
  });
});

describe('FaultService memory', () => {
  it('forgets the probability streams of rules removed by clear, not only by delete', async () => {
    const svc = new FaultService(
      new MemoryStore(),
      new ManualClock(),
      new Random('t'),
      () => new Set(['op']),
    );
    const streams = () => (svc as unknown as { streams: Map<string, unknown> }).streams.size;
    for (let i = 0; i < 20; i++) await svc.create({ operation: 'op', status: 503, probability: 1e-9 });
    await svc.create({ operation: 'op', status: 503, probability: 1e-9, match: { client_id: 'keep' } });
    await svc.pick({ operation: 'op', client_id: 'keep', path: '/' });
    expect(streams()).toBe(21);
    await svc.clear('gone');
    expect(streams()).toBe(21);
    await svc.clear();
    expect(streams()).toBe(0);
  });
});
