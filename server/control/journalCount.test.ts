import { describe, expect, it } from 'vitest';
import { DEMO_US, http, OTHER_US } from '../testing/http.js';
import { useJournalServers } from '../testing/journalRequests.js';

// Counting journaled requests (GET /__admin/requests/count), as CI assertions do.

const { start, journal } = useJournalServers();

describe('counting requests (verify)', () => {
  it('counts requests by method, path, app, status and since, for CI assertions', async () => {
    const s = await start();
    const key = (app: typeof DEMO_US) => ({ 'x-client-id': app.client_id, 'x-client-api-key': app.api_key });
    const submit = `${s.api}/open/partner/ai/transcriptions/`;
    const count = async (q: string) => {
      const r = await http('GET', `${s.admin}/requests/count?${q}`);
      expect(r.status, r.text).toBe(200);
      return r.body as { count: number; complete: boolean };
    };
    await http('POST', submit, { headers: key(DEMO_US), json: {} });
    await http('POST', submit, { headers: key(OTHER_US), json: {} });
    const mark = (await http('GET', `${s.admin}/clock`)).body.now as string;
    await http('POST', `${s.admin}/clock`, { json: { advance_ms: 1000 } });
    await http('POST', submit, { headers: key(DEMO_US), json: {} });
    await http('GET', `${s.api}/open/partner/ai/transcriptions/task_exec_00?x=1`, { headers: key(DEMO_US) });
    const path = encodeURIComponent('/developer/api/open/partner/ai/transcriptions/');
    expect(await count(`method=POST&path=${path}`)).toEqual({ count: 3, complete: true });
    expect((await count(`method=POST&path=${path}&client_id=${DEMO_US.client_id}`)).count).toBe(2);
    expect((await count(`method=POST&path=${path}&status=422`)).count).toBe(3);
    expect((await count(`method=POST&path=${path}&status=200`)).count).toBe(0);
    const since = encodeURIComponent(new Date(Date.parse(mark) + 1).toISOString());
    expect((await count(`path=${path}&since=${since}`)).count).toBe(1);
    // A trailing * matches a path prefix; the query string is never part of the path.
    expect((await count(`method=GET&path=${path}*`)).count).toBe(1);
    expect((await count(`method=GET&path=${path}task_exec_00`)).count).toBe(1);
    expect((await count('operation=createTranscription')).count).toBe(3);
    const bad = await http('GET', `${s.admin}/requests/count?method=post`);
    expect(bad.status).toBe(422);
    // The same filters narrow the listing.
    expect(await journal(s, `?method=GET&path=${path}*`)).toHaveLength(1);
  });

  it('says when a full ring may have dropped matches (complete: false)', async () => {
    const s = await start({ journalSize: 3 });
    for (let i = 0; i < 5; i++) await http('GET', `${s.api}/no/such/path`);
    const r = await http('GET', `${s.admin}/requests/count?method=GET`);
    expect(r.body).toEqual({ count: 3, complete: false });
    // Since a time the ring's oldest kept entry predates, nothing matching was dropped.
    await http('POST', `${s.admin}/clock`, { json: { advance_ms: 1000 } });
    const later = (await http('GET', `${s.admin}/clock`)).body.now as string;
    await http('GET', `${s.api}/no/such/path`);
    const since = await http('GET', `${s.admin}/requests/count?since=${encodeURIComponent(later)}`);
    expect(since.body).toEqual({ count: 1, complete: true });
  });
});
