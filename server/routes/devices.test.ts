import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenService } from '../domain/tokens.js';
import { bearer, DEMO_JP, DEMO_US, http, OTHER_US, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// The partner side of the device registry over real HTTP. One server for the file; every
// test arranges its own serials through the control API, so none depends on another.

let sim: TestServer;
let me: string;
let meSub: string;
let peer: string; // another account of the same app
let otherApp: string; // a user of another partner app
let partner: string;
let jp: string;
let serial = 0;
beforeAll(async () => {
  sim = await startTestServer();
  ({ user: me, partner } = await userToken(sim.api, DEMO_US, 'device-user-0001'));
  meSub = TokenService.userSub(DEMO_US.client_id, 'device-user-0001');
  ({ user: peer } = await userToken(sim.api, DEMO_US, 'device-user-0002'));
  ({ user: otherApp } = await userToken(sim.api, OTHER_US, 'device-user-0001'));
  ({ user: jp } = await userToken(sim.apiJp, DEMO_JP, 'device-user-0001'));
});
afterAll(() => sim.stop());

const typeOf = (sn: string) => (sn.startsWith('881') ? 'notepro' : 'notepins');
/** A serial no other test uses. */
const fresh = (prefix = '881') => `${prefix}0TEST${String(++serial).padStart(8, '0')}`;
const put = (sn: string, state: unknown) => http('PUT', `${sim.admin}/devices/${sn}`, { json: state });
const binding = (token: string | undefined, sn: string, type: string = typeOf(sn), base = sim.api) =>
  http('GET', `${base}/open/partner/sdk/binding?${new URLSearchParams({ type, sn })}`, {
    headers: token === undefined ? {} : bearer(token),
  });
const call = (op: 'sn-sign' | 'bind' | 'unbind', token: string, sn: string, type: string = typeOf(sn)) =>
  http('POST', `${sim.api}/open/partner/sdk/${op}`, { headers: bearer(token), json: { type, sn } });
const locs = (body: { detail: { loc: (string | number)[] }[] }) => body.detail.map((d) => d.loc.join('.'));
const H = [
  'client_user_3f2c8a90-1b2c-4d5e-8f90-123456789abc',
  'client_user_9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
];

describe('GET /open/partner/sdk/binding', () => {
  it.each([
    ['signed, never bound', { is_bind: null }, { is_bind: null, bind_history: [] }],
    ['unbound with history', { is_bind: false, bind_history: [H[0], H[0], H[1]] }, null],
    ['unbound, empty history', { is_bind: false, bind_history: [] }, null],
    ['bound', { is_bind: true, bind_history: [H[1], H[0], H[1]] }, null],
  ])('answers the %s state exactly as arranged', async (_name, state, expected) => {
    for (const prefix of ['881', '882']) {
      const sn = fresh(prefix);
      expect((await put(sn, state)).status).toBe(200);
      const r = await binding(me, sn);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(expected ?? state);
    }
  });

  it('answers a bare 404 (no body, no content type) for a serial never signed, and after delete', async () => {
    const sn = fresh('882');
    for (const r of [await binding(me, sn), await binding(me, fresh('881'))]) {
      expect(r.status).toBe(404);
      expect(r.text).toBe('');
      expect(r.headers.get('content-type')).toBeNull();
    }
    await put(sn, { is_bind: false, bind_history: [H[0]] });
    expect((await binding(me, sn)).status).toBe(200);
    expect((await http('DELETE', `${sim.admin}/devices/${sn}`)).status).toBe(204);
    const gone = await binding(me, sn);
    expect([gone.status, gone.text, gone.headers.get('content-type')]).toEqual([404, '', null]);
  });

  it('answers 422 naming a missing type or sn, an unsupported prefix, or a type that contradicts the prefix', async () => {
    const none = await http('GET', `${sim.api}/open/partner/sdk/binding`, { headers: bearer(me) });
    expect(none.status).toBe(422);
    expect(locs(none.body).sort()).toEqual(['query.sn', 'query.type']);
    const noType = await http('GET', `${sim.api}/open/partner/sdk/binding?sn=${fresh()}`, {
      headers: bearer(me),
    });
    expect(locs(noType.body)).toEqual(['query.type']);
    for (const sn of ['8800B30227290001', '8880B30227290001', '1234567890']) {
      const r = await binding(me, sn, 'notepro');
      expect(r.status).toBe(422);
      expect(locs(r.body)).toEqual(['query.sn']);
    }
    // A contradiction is checked before the lookup: same answer for known and unknown serials.
    const known = fresh('881');
    await put(known, { is_bind: null });
    for (const sn of [known, fresh('881')]) {
      const r = await binding(me, sn, 'notepins');
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([
        expect.objectContaining({
          loc: ['query', 'type'],
          input: 'notepins',
          msg: expect.stringContaining('881'),
        }),
      ]);
    }
  });

  it('is one world: a device bound through app A shows the same state to app B and to the JP region', async () => {
    const sn = fresh();
    await call('sn-sign', me, sn);
    await call('bind', me, sn);
    const expected = { is_bind: true, bind_history: [meSub] };
    expect((await binding(otherApp, sn)).body).toEqual(expected);
    expect((await binding(jp, sn, typeOf(sn), sim.apiJp)).body).toEqual(expected);
  });

  it('treats serials case-insensitively', async () => {
    const sn = fresh('882').replace('TEST', 'Test');
    await call('sn-sign', me, sn);
    expect((await binding(me, sn.toUpperCase())).body).toEqual({ is_bind: null, bind_history: [] });
    expect((await http('GET', `${sim.admin}/devices/${sn.toLowerCase()}`)).body.sn).toBe(sn.toUpperCase());
  });
});

describe('sn-sign, bind, unbind', () => {
  it('walks signed → bound → bound again → unbound → bound by another account, recording every bind', async () => {
    const sn = fresh('882');
    const peerSub = TokenService.userSub(DEMO_US.client_id, 'device-user-0002');
    expect((await call('sn-sign', me, sn)).body).toEqual({
      signature: expect.any(String),
      is_bind: null,
      bind_history: [],
    });
    // bind and unbind name the device first, as live answers ({type, sn, is_bind, ...}).
    const dev = { type: 'notepins', sn };
    expect((await call('bind', me, sn)).body).toEqual({ ...dev, is_bind: true, bind_history: [meSub] });
    const again = await call('bind', me, sn);
    expect([again.status, again.body]).toEqual([
      200,
      { ...dev, is_bind: true, bind_history: [meSub, meSub] },
    ]);
    expect((await call('sn-sign', me, sn)).body).toEqual({
      signature: expect.any(String),
      is_bind: true,
      bind_history: [meSub, meSub],
    });

    for (const op of ['bind', 'unbind'] as const) {
      const r = await call(op, peer, sn);
      expect(r.status).toBe(403);
      expect(r.body.detail).toBe('DEVICE_BOUND');
    }
    const released = { ...dev, is_bind: false, bind_history: [meSub, meSub] };
    expect((await call('unbind', me, sn)).body).toEqual(released);
    expect((await call('unbind', me, sn)).body).toEqual(released);
    expect((await call('unbind', peer, sn)).status).toBe(200);
    expect((await call('bind', peer, sn)).body).toEqual({
      ...dev,
      is_bind: true,
      bind_history: [peerSub, meSub, meSub],
    });
    expect((await http('GET', `${sim.admin}/devices/${sn}`)).body.owner).toEqual({
      sub: peerSub,
      client_id: DEMO_US.client_id,
    });
  });

  it('leaves a never-bound device null when it is unbound, and keeps the history of 50+ binds', async () => {
    const sn = fresh();
    await call('sn-sign', me, sn);
    expect((await call('unbind', me, sn)).body).toMatchObject({ sn, is_bind: null, bind_history: [] });
    for (let i = 0; i < 55; i++) expect((await call('bind', me, sn)).status).toBe(200);
    const r = await binding(otherApp, sn);
    expect(r.body.is_bind).toBe(true);
    expect(r.body.bind_history).toHaveLength(55);
    expect(new Set(r.body.bind_history)).toEqual(new Set([meSub]));
  });

  it('answers 404 DEVICE_NOT_FOUND for bind and unbind of a serial never signed', async () => {
    for (const op of ['bind', 'unbind'] as const) {
      const r = await call(op, me, fresh());
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe('DEVICE_NOT_FOUND');
    }
  });

  it('answers 422 naming body.type or body.sn for a bad device reference', async () => {
    for (const op of ['sn-sign', 'bind', 'unbind'] as const) {
      const contradicts = await call(op, me, fresh('882'), 'notepro');
      expect(contradicts.status).toBe(422);
      expect(locs(contradicts.body)).toEqual(['body.type']);
      const unsupported = await call(op, me, '8800B30227290001', 'notepro');
      expect(locs(unsupported.body)).toEqual(['body.sn']);
    }
  });
});

describe('credentials on every device operation', () => {
  const ops = [
    [
      'getDeviceBinding',
      (token?: string, base = sim.api) => binding(token, '8810B30227290001', 'notepro', base),
    ],
    ...(['sn-sign', 'bind', 'unbind'] as const).map(
      (op) =>
        [
          op,
          (token?: string, base = sim.api) =>
            http('POST', `${base}/open/partner/sdk/${op}`, {
              headers: token === undefined ? {} : bearer(token),
              json: { type: 'notepro', sn: '8810B30227290001' },
            }),
        ] as const,
    ),
  ] as const;

  it.each(
    ops,
  )('%s refuses no token, a bad token, a partner token and another region’s token', async (_op, send) => {
    const cases: [string | undefined, string, number, string][] = [
      [undefined, sim.api, 401, 'MISSING_CREDENTIALS'],
      ['not-a-jwt', sim.api, 401, 'INVALID_TOKEN'],
      [partner, sim.api, 403, 'WRONG_TOKEN_KIND'],
      [jp, sim.api, 401, 'CLIENT_USER_NOT_FOUND'],
      [me, sim.apiJp, 401, 'CLIENT_USER_NOT_FOUND'],
    ];
    for (const [token, base, status, detail] of cases) {
      const r = await send(token, base);
      expect([r.status, r.body.detail], `${detail}`).toEqual([status, detail]);
    }
  });
});
