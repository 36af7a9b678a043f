import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completeUpload, putPart, startUpload } from '../client/steps.js';
import { bearer, exchangeToken, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// Many CI jobs share one simulator, each with its own app: one job's clock moves, journal
// traffic and clean-up must not reach another's (issue: CI tenancy).

let sim: TestServer;
beforeEach(async () => {
  sim = await startTestServer({ chunkSize: 1024, transcriptionDelay: 60_000, journalSize: 5 });
});
afterEach(() => sim.stop());

const DAY = 86_400_000;
const newApp = async (client_id: string) =>
  (await http('POST', `${sim.admin}/apps`, { json: { client_id } })).body as {
    client_id: string;
    secret_key: string;
    api_key: string;
  };
const clock = (json: Record<string, unknown>) => http('POST', `${sim.admin}/clock`, { json });
const binding = (token: string, sn = '881AAA0000001') =>
  http('GET', `${sim.api}/open/partner/sdk/binding?sn=${sn}&type=notepro`, { headers: bearer(token) });

describe('a clock per app', () => {
  it('moving one app two days expires its tokens and URLs, and no other app’s', async () => {
    const a = await newApp('job-a-app');
    const b = await newApp('job-b-app');
    const ta = await userToken(sim.api, a);
    const tb = await userToken(sim.api, b);
    const ua = await startUpload(sim.api, ta.user, 10);
    const ub = await startUpload(sim.api, tb.user, 10);

    const moved = await clock({ client_id: a.client_id, advance_ms: 2 * DAY });
    expect(moved.status).toBe(200);
    expect(moved.body.client_id).toBe(a.client_id);
    expect(Date.parse(moved.body.now) - Date.now()).toBeGreaterThan(2 * DAY - 60_000);

    expect((await binding(ta.user)).body).toMatchObject({ detail: 'TOKEN_EXPIRED' });
    // The background sweep may already have removed A's abandoned session: its URL must still
    // expire on A's clock (403), not turn into a missing upload judged on the instance clock.
    await sim.housekeeper.tick(true);
    expect(await sim.services.storage.uploads.get(ua.UploadId)).toBeUndefined();
    expect((await binding(tb.user)).status).not.toBe(401);
    const putA = await putPart(ua.Parts[0]!.PresignedUrl, Buffer.alloc(10));
    const putB = await putPart(ub.Parts[0]!.PresignedUrl, Buffer.alloc(10));
    expect(putA.status).toBe(403);
    expect(putA.text).toContain('Request has expired');
    expect(putB.status).toBe(200);

    const instance = await http('GET', `${sim.admin}/clock`);
    expect(Math.abs(instance.body.offset_ms)).toBeLessThan(1000);
    const readA = await http('GET', `${sim.admin}/clock?client_id=${a.client_id}`);
    expect(readA.body.offset_ms).toBeGreaterThan(2 * DAY - 1000);
  });

  it('transcription progress follows the clock of the task’s app', async () => {
    const a = await newApp('job-a-app');
    const b = await newApp('job-b-app');
    const submit = (app: typeof a) =>
      http('POST', `${sim.api}/open/partner/ai/transcriptions/`, {
        headers: { 'x-client-id': app.client_id, 'x-client-api-key': app.api_key },
        json: { file_url: 'https://example.com/a.mp3' },
      });
    const get = (app: typeof a, id: string) =>
      http('GET', `${sim.api}/open/partner/ai/transcriptions/${id}`, {
        headers: { 'x-client-id': app.client_id, 'x-client-api-key': app.api_key },
      });
    const [sa, sb] = [await submit(a), await submit(b)];
    await clock({ client_id: a.client_id, advance_ms: DAY });
    expect((await get(a, sa.body.transcription_id)).body.status).toBe('SUCCESS');
    expect((await get(b, sb.body.transcription_id)).body.status).not.toBe('SUCCESS');
  });

  it('a frozen app stays put with real time but moves with the instance clock', async () => {
    const a = await newApp('job-a-app');
    const frozen = await clock({ client_id: a.client_id, now: '2031-01-01T00:00:00Z', freeze: true });
    expect(frozen.body).toMatchObject({ now: '2031-01-01T00:00:00.000Z', frozen: true });
    await new Promise((r) => setTimeout(r, 30));
    expect((await http('GET', `${sim.admin}/clock?client_id=${a.client_id}`)).body.now).toBe(
      '2031-01-01T00:00:00.000Z',
    );
    await clock({ advance_ms: 3_600_000 });
    const after = await http('GET', `${sim.admin}/clock?client_id=${a.client_id}`);
    expect(after.body.now).toBe('2031-01-01T01:00:00.000Z');
    const thawed = await clock({ client_id: a.client_id, freeze: false });
    expect(thawed.body.frozen).toBe(false);
    expect(Date.parse(thawed.body.now)).toBeGreaterThanOrEqual(Date.parse('2031-01-01T01:00:00Z'));
  });

  it('refuses an unknown app (404) and a move outside 1970–9999 (422), keeping the clock', async () => {
    expect((await clock({ client_id: 'nobody-app', advance_ms: 1 })).status).toBe(404);
    expect((await http('GET', `${sim.admin}/clock?client_id=nobody-app`)).status).toBe(404);
    const a = await newApp('job-a-app');
    const bad = await clock({ client_id: a.client_id, advance_ms: -60 * 365 * DAY });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'advance_ms']);
    const read = await http('GET', `${sim.admin}/clock?client_id=${a.client_id}`);
    expect(Math.abs(read.body.offset_ms)).toBeLessThan(1000);
  });
});

describe('a journal per app', () => {
  it('one app’s burst never evicts another app’s entries; no-app traffic has its own ring', async () => {
    const a = await newApp('job-a-app');
    const b = await newApp('job-b-app');
    await exchangeToken(sim.api, b);
    for (let i = 0; i < 12; i++) await exchangeToken(sim.api, a);
    await http('GET', `${sim.api}/open/partner/sdk/binding?sn=881AAA0000001&type=notepro`);

    const ofB = await http('GET', `${sim.admin}/requests?client_id=${b.client_id}`);
    expect(ofB.body).toHaveLength(1);
    const ofA = await http('GET', `${sim.admin}/requests?client_id=${a.client_id}`);
    expect(ofA.body).toHaveLength(5);
    const all = await http('GET', `${sim.admin}/requests?limit=100`);
    expect(all.body).toHaveLength(7);
    expect(all.body.map((e: { id: string }) => e.id)).toEqual(
      [...all.body.map((e: { id: string }) => e.id)].sort().reverse(),
    );
    expect(all.body.filter((e: { client_id: unknown }) => e.client_id === null)).toHaveLength(1);
  });

  it('files a refused request under the app it claimed, marked unverified', async () => {
    const a = await newApp('job-a-app');
    await exchangeToken(sim.api, { client_id: a.client_id, secret_key: 'wrong' });
    await exchangeToken(sim.api, { client_id: 'made-up-app', secret_key: 'wrong' });
    await exchangeToken(sim.api, a);
    const ofA = (await http('GET', `${sim.admin}/requests?client_id=${a.client_id}`)).body;
    expect(ofA.map((e: { status: number; unverified?: boolean }) => [e.status, e.unverified])).toEqual([
      [200, undefined],
      [401, true],
    ]);
    const made = (await http('GET', `${sim.admin}/requests?client_id=made-up-app`)).body;
    expect(made).toHaveLength(1);
    expect(made[0].unverified).toBe(true);
  });
});

describe('unverified claims', () => {
  it('many forged claims on an app evict none of its entries, nor other strays; listings filter them', async () => {
    const a = await newApp('job-a-app');
    await exchangeToken(sim.api, a);
    await exchangeToken(sim.api, a);
    await http('GET', `${sim.api}/no/such/path`);
    for (let i = 0; i < 12; i++) {
      const r = await http('POST', `${sim.api}/open/partner/ai/transcriptions/`, {
        headers: { 'x-client-id': a.client_id, 'x-client-api-key': 'forged-key' },
        json: { file_url: 'https://example.com/a.mp3' },
      });
      expect(r.status).toBe(401);
    }
    type Entry = { status: number; client_id: string | null; unverified?: boolean };
    const list = async (q: string) => (await http('GET', `${sim.admin}/requests${q}`)).body as Entry[];
    const real = await list(`?client_id=${a.client_id}&unverified=false`);
    expect(real.map((e) => [e.status, e.unverified])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
    const forged = await list(`?client_id=${a.client_id}&unverified=true`);
    // The journal keeps 5 per ring: the newest 5 claims, in the app's unverified ring.
    expect(forged).toHaveLength(5);
    expect(forged.every((e) => e.unverified === true && e.status === 401)).toBe(true);
    // The stray request of no app was not pushed out by them.
    expect((await list('')).filter((e) => e.client_id === null && e.status === 404)).toHaveLength(1);
    // Clearing the app clears its claims too.
    await http('DELETE', `${sim.admin}/requests?client_id=${a.client_id}`);
    expect(await list(`?client_id=${a.client_id}`)).toEqual([]);
  });
});

describe('DELETE /__admin/apps/{client_id}', () => {
  it('removes the app and everything it owns; another app is untouched', async () => {
    const a = await newApp('job-a-app');
    const b = await newApp('job-b-app');
    const ta = await userToken(sim.api, a);
    await userToken(sim.api, b);
    const sn = '881DEL0000001';
    await http('PUT', `${sim.admin}/devices/${sn}`, { json: { type: 'notepro', is_bind: null } });
    const bind = await http('POST', `${sim.api}/open/partner/sdk/bind`, {
      headers: bearer(ta.user),
      json: { sn, type: 'notepro' },
    });
    expect(bind.status).toBe(200);
    await startUpload(sim.api, ta.user, 10);
    await http('POST', `${sim.admin}/faults`, {
      json: { operation: 'getBinding', status: 503, match: { client_id: a.client_id } },
    });
    await clock({ client_id: a.client_id, advance_ms: 1000 });

    const del = await http('DELETE', `${sim.admin}/apps/${a.client_id}`);
    expect(del.status).toBe(204);
    const apps = (await http('GET', `${sim.admin}/apps`)).body.map((x: { client_id: string }) => x.client_id);
    expect(apps).not.toContain(a.client_id);
    expect(apps).toContain(b.client_id);
    expect((await exchangeToken(sim.api, a)).status).toBe(401);
    expect((await http('GET', `${sim.admin}/faults?client_id=${a.client_id}`)).body).toEqual([]);
    const left = (await http('GET', `${sim.admin}/requests?client_id=${a.client_id}`)).body;
    expect(left.filter((e: { unverified?: boolean }) => !e.unverified)).toEqual([]);
    expect(await sim.services.storage.uploads.findBy('client_id', a.client_id)).toEqual([]);
    const device = (await http('GET', `${sim.admin}/devices/${sn}`)).body;
    expect(device.is_bind).toBe(false);
    expect(device.bind_history).toHaveLength(1);
    expect((await http('GET', `${sim.admin}/requests?client_id=${b.client_id}`)).body.length).toBeGreaterThan(
      0,
    );

    expect((await http('DELETE', `${sim.admin}/apps/${a.client_id}`)).status).toBe(404);
  });

  it("a deleted app's tokens stay dead when an app with the same client_id is created again", async () => {
    const old = await userToken(sim.api, await newApp('job-a-app'));
    expect((await http('DELETE', `${sim.admin}/apps/job-a-app`)).status).toBe(204);
    const again = await newApp('job-a-app');
    const fresh = await userToken(sim.api, again);
    // The new app's user (same user id, so the same account) starts an upload and sends its part.
    const up = await startUpload(sim.api, fresh.user, 10);
    const part = await putPart(up.Parts[0]!.PresignedUrl, Buffer.alloc(10, 1));
    expect(part.status).toBe(200);

    const users = await http('POST', `${sim.api}/open/partner/users/access-token`, {
      headers: bearer(old.partner),
      json: { user_id: 'partner-user-0001' },
    });
    expect(users.status).toBe(401);
    expect(users.body.detail).toBe('CLIENT_USER_NOT_FOUND');
    expect((await binding(old.user)).status).toBe(401);
    const finish = (token: string) =>
      completeUpload(sim.api, token, {
        file_id: up.FileId,
        upload_id: up.UploadId,
        part_list: [{ PartNumber: 1, ETag: part.etag! }],
      });
    expect((await finish(old.user)).status).toBe(401);
    // The new incarnation's own tokens work, and the upload is still the new user's to finish.
    expect((await finish(fresh.user)).status).toBe(200);
  });
});
