import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { BIND_HISTORY_MAX } from '../domain/deviceModel.js';
import type { DeviceFixture } from '../domain/devices.js';
import { TokenService } from '../domain/tokens.js';
import { bearer, DEMO_US, http, OTHER_US, userToken } from '../testing/http.js';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';

// Control API over the device registry, and the fixture registry served over real HTTP.

let sim: TestServer;
let serial = 0;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(() => sim.stop());

const fixtures = JSON.parse(readFileSync(fromRoot('fixtures/devices.json'), 'utf8')) as DeviceFixture[];
const fresh = (prefix = '881') => `${prefix}0ADMN${String(++serial).padStart(8, '0')}`;
const put = (sn: string, state: unknown, base = sim.admin) =>
  http('PUT', `${base}/devices/${sn}`, { json: state });
const typeOf = (sn: string) => (sn.startsWith('881') ? 'notepro' : 'notepins');
const binding = (api: string, token: string, sn: string) =>
  http('GET', `${api}/open/partner/sdk/binding?${new URLSearchParams({ type: typeOf(sn), sn })}`, {
    headers: bearer(token),
  });
const locs = (body: { detail: { loc: (string | number)[] }[] }) => body.detail.map((d) => d.loc.join('.'));
const A = 'client_user_3f2c8a90-1b2c-4d5e-8f90-123456789abc';
const B = 'client_user_9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const UUID = /^client_user_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('PUT/GET/DELETE /__admin/devices', () => {
  it('creates and replaces a device in exactly the given state, and answers the device', async () => {
    const sn = fresh('882');
    const owner = { sub: B, client_id: OTHER_US.client_id };
    const made = await put(sn, { is_bind: true, bind_history: [B, A, B], owner });
    expect(made.status).toBe(200);
    expect(made.body).toEqual({
      sn,
      type: 'notepins',
      is_bind: true,
      bind_history: [B, A, B],
      owner,
      signed: true,
    });
    expect((await http('GET', `${sim.admin}/devices/${sn}`)).body).toEqual(made.body);
    const replaced = await put(sn, { is_bind: false, bind_history: [A], type: 'notepins' });
    expect(replaced.body).toMatchObject({ is_bind: false, bind_history: [A], owner: null });
    const list = await http('GET', `${sim.admin}/devices`);
    expect(list.body.filter((d: { sn: string }) => d.sn === sn)).toEqual([replaced.body]);
    expect(list.body.map((d: { sn: string }) => d.sn)).toEqual(
      list.body.map((d: { sn: string }) => d.sn).sort(),
    );
  });

  it('derives the owner of is_bind true from the newest history entry, else generates one', async () => {
    const sn = fresh();
    expect((await put(sn, { is_bind: true, bind_history: [A, B] })).body.owner).toEqual({
      sub: A,
      client_id: 'unknown',
    });
    const lone = await put(fresh(), { is_bind: true });
    expect(lone.body.owner.sub).toMatch(UUID);
    expect(lone.body.bind_history).toEqual([]);
    // The generated account is nobody's: a real user cannot bind the device.
    const { user } = await userToken(sim.api, DEMO_US, 'admin-test-user');
    const r = await http('POST', `${sim.api}/open/partner/sdk/bind`, {
      headers: bearer(user),
      json: { type: 'notepro', sn: lone.body.sn },
    });
    expect([r.status, r.body.detail]).toEqual([403, 'DEVICE_BOUND']);
  });

  it('answers 422 for contradicting states, types, prefixes and history entries', async () => {
    const cases: [string, unknown, string[]][] = [
      [fresh(), { is_bind: false, owner: { sub: A, client_id: 'x' } }, ['body.owner']],
      [fresh(), { is_bind: null, owner: { sub: A, client_id: 'x' } }, ['body.owner']],
      [fresh(), { is_bind: null, bind_history: [A] }, ['body.bind_history']],
      [fresh(), { is_bind: false, type: 'notepins' }, ['body.type']],
      [fresh(), { is_bind: false, bind_history: [A, 'user-42'] }, ['body.bind_history.1']],
      [fresh(), { bind_history: [] }, ['body.is_bind']],
      ['8800B30227290001', { is_bind: false }, ['path.sn']],
    ];
    for (const [sn, state, expected] of cases) {
      const r = await put(sn, state);
      expect([r.status, locs(r.body)], JSON.stringify(state)).toEqual([422, expected]);
    }
  });

  it('forgets a device: GET and DELETE then answer 404 DEVICE_NOT_FOUND and the binding a bare 404', async () => {
    const sn = fresh();
    await put(sn, { is_bind: false, bind_history: [A] });
    expect((await http('DELETE', `${sim.admin}/devices/${sn}`)).status).toBe(204);
    for (const r of [
      await http('GET', `${sim.admin}/devices/${sn}`),
      await http('DELETE', `${sim.admin}/devices/${sn}`),
    ]) {
      expect([r.status, r.body.detail]).toEqual([404, 'DEVICE_NOT_FOUND']);
    }
    const { user } = await userToken(sim.api, DEMO_US);
    const gone = await binding(sim.api, user, sn);
    expect([gone.status, gone.text, gone.headers.get('content-type')]).toEqual([404, '', null]);
  });

  it('keeps devices and their bind events across a restart with the same data dir', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const a = await startTestServer({ inMemory: false, dataDir: dir });
      const sn = fresh('882');
      const history = Array.from({ length: 60 }, (_, i) => (i % 7 ? A : B));
      await put(sn, { is_bind: false, bind_history: history }, a.admin);
      await a.stop();
      const b = await startTestServer({ inMemory: false, dataDir: dir });
      try {
        expect((await http('GET', `${b.admin}/devices/${sn}`)).body.bind_history).toEqual(history);
      } finally {
        await b.stop();
      }
    } finally {
      await cleanup();
    }
  });
});

/** 50+ copies of one id with other ids between its first and last copy. */
function fiftyInterleaved(h: string[]): boolean {
  return h.some((id) => {
    if (h.filter((x) => x === id).length < 50) return false;
    return h.slice(h.indexOf(id), h.lastIndexOf(id)).some((x) => x !== id);
  });
}

describe('fixtures/devices.json', () => {
  const demoSub = TokenService.userSub(DEMO_US.client_id, 'demo-user-0001');
  const byNote = (words: string) => fixtures.find((f) => f.note?.includes(words))!;

  it('covers every case a partner needs, with realistic ids', () => {
    const cases = {
      nullPro: fixtures.find((f) => f.is_bind === null && f.sn.startsWith('881')),
      nullPins: fixtures.find((f) => f.is_bind === null && f.sn.startsWith('882')),
      unboundHistory: fixtures.find((f) => f.is_bind === false && (f.bind_history?.length ?? 0) > 1),
      otherApp: fixtures.find((f) => f.is_bind && f.owner?.client_id === OTHER_US.client_id),
      demo: fixtures.find((f) => f.is_bind && f.owner?.sub === demoSub),
      single: fixtures.find((f) => f.bind_history?.length === 1),
      empty: fixtures.find((f) => f.is_bind === false && f.bind_history?.length === 0),
      duplicates: fixtures.find((f) => fiftyInterleaved(f.bind_history ?? [])),
    };
    for (const [name, f] of Object.entries(cases)) expect(f, name).toBeDefined();
    for (const f of fixtures) {
      for (const id of [...(f.bind_history ?? []), ...(f.owner ? [f.owner.sub] : [])])
        expect(id).toMatch(UUID);
    }
    expect(new Set(fixtures.map((f) => f.sn)).size).toBe(fixtures.length);
  });

  it('binds the "demo user" fixture to demo-user-0001 of demo-client-us, who can release it', async () => {
    const f = byNote('bound to the demo user');
    expect(f.owner).toEqual({ sub: demoSub, client_id: DEMO_US.client_id });
    const { user } = await userToken(sim.api, DEMO_US, 'demo-user-0001');
    const sn = fresh('882');
    await put(sn, f); // a copy, so the shared fixture stays as seeded for other tests
    const r = await http('POST', `${sim.api}/open/partner/sdk/unbind`, {
      headers: bearer(user),
      json: { type: 'notepins', sn },
    });
    expect(r.body).toEqual({ type: 'notepins', sn, is_bind: false, bind_history: f.bind_history });
  });

  it('serves every fixture over HTTP exactly as the file states, to every app and region', async () => {
    const tokens = [
      [sim.api, (await userToken(sim.api, DEMO_US)).user],
      [sim.api, (await userToken(sim.api, OTHER_US)).user],
      [
        sim.apiJp,
        (await userToken(sim.apiJp, { client_id: 'demo-client-jp', secret_key: 'demo-secret-jp-0000' })).user,
      ],
    ] as const;
    for (const f of fixtures) {
      for (const [api, token] of tokens) {
        const r = await binding(api, token, f.sn);
        expect([r.status, r.body], f.sn).toEqual([200, { is_bind: f.is_bind, bind_history: f.bind_history }]);
      }
    }
  });

  it('refuses a bind_history longer than the documented cap, naming the field', async () => {
    const sn = fresh();
    const r = await put(sn, { is_bind: false, bind_history: Array(BIND_HISTORY_MAX + 1).fill(A) });
    expect(r.status).toBe(422);
    expect(locs(r.body)).toEqual(['body.bind_history']);
    expect((await put(sn, { is_bind: false, bind_history: Array(BIND_HISTORY_MAX).fill(A) })).status).toBe(
      200,
    );
  });

  it('comes back as seeded after POST /__admin/reset', async () => {
    const s = await startTestServer();
    try {
      const f = fixtures[0]!;
      await http('DELETE', `${s.admin}/devices/${f.sn}`);
      await put(f.sn, { is_bind: false }, s.admin);
      expect((await http('POST', `${s.admin}/reset`)).status).toBe(204);
      expect((await http('GET', `${s.admin}/devices/${f.sn}`)).body).toMatchObject({
        is_bind: f.is_bind,
        bind_history: f.bind_history,
      });
      expect((await http('GET', `${s.admin}/devices`)).body).toHaveLength(fixtures.length);
    } finally {
      await s.stop();
    }
  });
});
