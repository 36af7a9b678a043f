import { describe, expect, it } from 'vitest';
import { putPart, startUpload } from '../client/steps.js';
import { Journal } from '../store/memoryJournal.js';
import { basicAuth, bearer, DEMO_US, http, OTHER_US, userToken } from '../testing/http.js';
import { useJournalServers } from '../testing/journalRequests.js';

// The request journal: what is recorded, filtered, kept and cleared; per-app listings; the ring.
// Excerpts and redaction are in journalRedaction.test.ts, counting in journalCount.test.ts.

const { start, exchange, journal } = useJournalServers();

describe('request journal', () => {
  it('records partner API and storage requests, not control API ones, newest first', async () => {
    const s = await start({ chunkSize: 1024 });
    const { user } = await userToken(s.api, DEMO_US);
    const up = await startUpload(s.api, user, 10);
    await putPart(up.Parts[0]!.PresignedUrl, Buffer.alloc(10));
    await http('GET', `${s.api}/no/such/path`);
    await http('GET', `${s.admin}/clock`);
    const all = await journal(s);
    expect(all.map((e) => e.operation)).toEqual([
      null,
      'uploadPart',
      'generatePresignedUrls',
      'createUserToken',
      'getPartnerToken',
    ]);
    const [notFound, part, presign] = all;
    expect(notFound).toMatchObject({ status: 404, method: 'GET', path: '/developer/api/no/such/path' });
    expect(part).toMatchObject({
      method: 'PUT',
      status: 200,
      surface: 'storage',
      client_id: DEMO_US.client_id,
      body_summary: { bytes: 10 },
      fault_id: null,
    });
    expect(presign).toMatchObject({
      status: 200,
      surface: 'api',
      region: 'us',
      client_id: DEMO_US.client_id,
      body_summary: { filesize: 10, filetype: 'mp3' },
    });
    expect(presign.latency_ms).toBeGreaterThan(0);
    expect(Date.parse(presign.time)).toBeGreaterThan(0);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort().reverse());
  });

  it('filters by operation, status, client_id, since and limit', async () => {
    const s = await start();
    await exchange(s);
    await exchange(s, OTHER_US);
    await exchange(s, { ...DEMO_US, secret_key: 'wrong' });
    const mark = new Date(Date.parse((await http('GET', `${s.admin}/clock`)).body.now) + 1).toISOString();
    await http('POST', `${s.admin}/clock`, { json: { advance_ms: 5000 } });
    await exchange(s, OTHER_US);
    expect(await journal(s, '?operation=getPartnerToken')).toHaveLength(4);
    const refused = await journal(s, '?status=401');
    // A refused request is filed under the client id it claimed.
    expect(refused.map((e) => e.client_id)).toEqual([DEMO_US.client_id]);
    expect(await journal(s, `?client_id=${OTHER_US.client_id}`)).toHaveLength(2);
    expect(await journal(s, `?client_id=${DEMO_US.client_id}&status=200`)).toHaveLength(1);
    const since = await journal(s, `?since=${encodeURIComponent(mark)}`);
    expect(since.map((e) => e.client_id)).toEqual([OTHER_US.client_id]);
    expect(await journal(s, '?limit=2')).toHaveLength(2);
    for (const q of ['?limit=0', '?status=99', '?since=yesterday']) {
      const r = await http('GET', `${s.admin}/requests${q}`);
      expect(r.status, q).toBe(422);
      expect(r.body.detail[0].loc[0]).toBe('query');
    }
  });

  it('keeps only the last --journal-size entries', async () => {
    const s = await start({ journalSize: 5 });
    for (let i = 0; i < 8; i++) await exchange(s);
    const all = await journal(s, '?limit=100');
    expect(all.map((e) => e.id)).toEqual([
      'req_000008',
      'req_000007',
      'req_000006',
      'req_000005',
      'req_000004',
    ]);
  });

  it('clears everything or one app', async () => {
    const s = await start();
    await exchange(s);
    await exchange(s, OTHER_US);
    expect((await http('DELETE', `${s.admin}/requests?client_id=${DEMO_US.client_id}`)).status).toBe(204);
    expect((await journal(s)).map((e) => e.client_id)).toEqual([OTHER_US.client_id]);
    await http('DELETE', `${s.admin}/requests`);
    expect(await journal(s)).toEqual([]);
  });

  it('marks requests a fault shaped', async () => {
    const s = await start();
    const f = await http('POST', `${s.admin}/faults`, {
      json: { operation: 'getPartnerToken', status: 503 },
    });
    await exchange(s);
    await http('POST', `${s.api}/oauth/partner/access-token`, {
      headers: { ...basicAuth(OTHER_US.client_id, OTHER_US.secret_key), 'X-Sim-Fault': 'status=500' },
    });
    const [header, rule] = await journal(s);
    expect(rule).toMatchObject({ status: 503, fault_id: f.body.id });
    expect(header).toMatchObject({ status: 500, fault_id: 'header' });
  });
});

describe('per-app journal listing', () => {
  it('never returns more than --journal-size entries, own requests and claims together', async () => {
    const s = await start({ journalSize: 10 });
    const { user } = await userToken(s.api, DEMO_US);
    const key = { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key };
    // Verified requests fill the app's ring; requests that only name it (an unknown path with
    // its key, not authenticated) fill its unverified ring: 24 kept in all.
    for (let i = 0; i < 12; i++)
      await http('GET', `${s.api}/open/partner/sdk/binding?sn=888812345678`, { headers: bearer(user) });
    for (let i = 0; i < 12; i++) await http('GET', `${s.api}/open/partner/nope`, { headers: key });
    const listed = await journal(s, `?client_id=${DEMO_US.client_id}&limit=1000`);
    expect(listed).toHaveLength(10);
    // The newest ten: the claims came last.
    expect(listed.every((e) => e.unverified === true)).toBe(true);
    // Claims evict nothing: the app's own ten are all still there.
    const own = await journal(s, `?client_id=${DEMO_US.client_id}&unverified=false&limit=1000`);
    expect(own).toHaveLength(10);
    expect(own.every((e) => e.operation === 'getDeviceBinding')).toBe(true);
    expect(await journal(s, `?client_id=${DEMO_US.client_id}&limit=4`)).toHaveLength(4);
    // Following the pages never goes past the size either.
    let url: string | undefined = `${s.admin}/requests?client_id=${DEMO_US.client_id}&limit=4`;
    let paged = 0;
    while (url) {
      const r: Awaited<ReturnType<typeof http>> = await http('GET', url);
      paged += (r.body as unknown[]).length;
      url = /<([^>]+)>;\s*rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
    }
    expect(paged).toBe(10);
  });
});

describe('Journal ring', () => {
  const entry = (client_id: string) => ({
    time: '2024-01-01T00:00:00.000Z',
    operation: 'x',
    method: 'GET',
    path: '/',
    status: 200,
    latency_ms: 1,
    client_id,
    headers: {},
    fault_id: null,
  });

  it('wraps around and clears one app while keeping order', async () => {
    const j = new Journal(3);
    for (const c of ['a', 'b', 'a', 'b', 'a']) await j.add(entry(c), 0);
    expect((await j.list()).map((e) => e.id)).toEqual(['req_000005', 'req_000004', 'req_000003']);
    expect(await j.clear('a')).toBe(2);
    expect((await j.list()).map((e) => e.id)).toEqual(['req_000004']);
    await j.add(entry('c'), 0);
    expect((await j.list()).map((e) => e.id)).toEqual(['req_000006', 'req_000004']);
  });

  it('records nothing with capacity 0', async () => {
    const j = new Journal(0);
    await j.add(entry('a'), 0);
    expect(await j.list()).toEqual([]);
  });
});
