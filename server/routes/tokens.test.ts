import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from '../domain/jwt.js';
import { basicAuth, bearer, DEMO_JP, DEMO_US, http, userToken } from '../testing/http.js';
import { docs, schemaCompiler } from '../testing/specDocuments.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(() => sim.stop());

const claimsSchema = () =>
  schemaCompiler('api', docs[0]!.doc)({ $ref: '#/components/schemas/UserTokenClaims' });

const exchange = (api: string, id: string, secret: string, body: 'form' | 'json' | 'none' = 'form') =>
  http('POST', `${api}/oauth/partner/access-token`, {
    headers: basicAuth(id, secret),
    ...(body === 'form' ? { form: {} } : body === 'json' ? { json: {} } : {}),
  });

describe('partner token exchange', () => {
  it.each(['form', 'json', 'none'] as const)('accepts a %s body', async (style) => {
    const r = await exchange(sim.api, DEMO_US.client_id, DEMO_US.secret_key, style);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    expect(typeof r.body.access_token).toBe('string');
    expect(typeof r.body.refresh_token).toBe('string');
    expect(decodeJwt(r.body.access_token)).toMatchObject({
      token_use: 'partner',
      client_id: DEMO_US.client_id,
      region: 'us',
    });
  });

  it('refuses a wrong secret, an unknown client and a missing header with 401 CLIENT_NOT_FOUND', async () => {
    for (const r of [
      await exchange(sim.api, DEMO_US.client_id, 'wrong-secret'),
      await exchange(sim.api, 'nobody', 'x'),
      await http('POST', `${sim.api}/oauth/partner/access-token`, { form: {} }),
    ]) {
      expect(r.status).toBe(401);
      expect(r.body.detail).toBe('CLIENT_NOT_FOUND');
      expect(r.text).not.toContain('access_token');
    }
  });

  it('keeps credentials in their region', async () => {
    const proven = await exchange(sim.apiJp, DEMO_US.client_id, DEMO_US.secret_key);
    expect(proven.status).toBe(401);
    // The right secret proved the app: it hears where it lives (base path included).
    expect(proven.body).toMatchObject({ detail: 'CLIENT_NOT_FOUND' });
    expect(proven.body.message).toMatch(/exists in the US region: send it to \/developer\/api/);
    // A wrong secret and an unknown id keep answering alike: nothing to enumerate.
    const wrong = await exchange(sim.apiJp, DEMO_US.client_id, 'not-the-secret');
    const unknown = await exchange(sim.apiJp, 'no-such-client', 'not-the-secret');
    expect([wrong.status, wrong.body]).toEqual([unknown.status, unknown.body]);
    expect(wrong.body.message).not.toMatch(/region:/);
    expect((await exchange(sim.api, DEMO_JP.client_id, DEMO_JP.secret_key)).status).toBe(401);
    expect((await exchange(sim.apiJp, DEMO_JP.client_id, DEMO_JP.secret_key)).status).toBe(200);
  });

  it('refresh tokens work exactly once', async () => {
    const first = await exchange(sim.api, DEMO_US.client_id, DEMO_US.secret_key);
    const refresh = (token: string) =>
      http('POST', `${sim.api}/oauth/partner/access-token/refresh`, {
        headers: basicAuth(DEMO_US.client_id, DEMO_US.secret_key),
        form: { refresh_token: token },
      });
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    const again = await refresh(first.body.refresh_token);
    expect(again.status).toBe(401);
    expect(again.body.detail).toBe('INVALID_REFRESH_TOKEN');
    expect((await refresh(second.body.refresh_token)).status).toBe(200);
    // Exchanged twice at once: exactly one of the two gets a new pair.
    const raced = await exchange(sim.api, DEMO_US.client_id, DEMO_US.secret_key);
    const both = await Promise.all([refresh(raced.body.refresh_token), refresh(raced.body.refresh_token)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 401]);
  });
});

describe('user tokens', () => {
  const mint = async (json: unknown, token?: string) => {
    const partner =
      token ?? (await exchange(sim.api, DEMO_US.client_id, DEMO_US.secret_key)).body.access_token;
    return http('POST', `${sim.api}/open/partner/users/access-token`, { headers: bearer(partner), json });
  };

  it('accepts user_id of 6 and 120 characters, refuses 5 and 121 naming the field', async () => {
    expect((await mint({ user_id: 'a'.repeat(6) })).status).toBe(200);
    expect((await mint({ user_id: 'a'.repeat(120) })).status).toBe(200);
    for (const len of [5, 121]) {
      const r = await mint({ user_id: 'a'.repeat(len) });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['body', 'user_id']);
    }
  });

  it('lists every bad field in one 422', async () => {
    const r = await mint({ expires_in: 'soon', extra: 1 });
    expect(r.status).toBe(422);
    const locs = r.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toContain('body.user_id');
    expect(locs).toContain('body.expires_in');
  });

  it('names the content type when a JSON body is sent as curl -d sends it (form encoded), or with none', async () => {
    const partner = (await exchange(sim.api, DEMO_US.client_id, DEMO_US.secret_key)).body.access_token;
    const send = (contentType: string | undefined) =>
      fetch(`${sim.api}/open/partner/users/access-token`, {
        method: 'POST',
        headers: { ...bearer(partner), ...(contentType ? { 'content-type': contentType } : {}) },
        // A Blob without a type: fetch then sends no Content-Type at all.
        body: new Blob([JSON.stringify({ user_id: 'curl-user-1' })]),
      });
    const form = await send('application/x-www-form-urlencoded');
    expect(form.status).toBe(422);
    const [issue, ...rest] = ((await form.json()) as { detail: { loc: string[]; msg: string }[] }).detail;
    expect(rest).toEqual([]);
    expect(issue?.loc).toEqual(['body']);
    expect(issue?.msg).toContain('sent as application/x-www-form-urlencoded');
    expect(issue?.msg).toContain('Content-Type: application/json');
    const none = await send(undefined);
    expect(none.status).toBe(422);
    expect(((await none.json()) as { detail: { msg: string }[] }).detail[0]?.msg).toContain(
      'without a Content-Type header',
    );
    // The right type still works, and a JSON body missing the field still names the field.
    expect((await send('application/json')).status).toBe(200);
    expect((await mint({})).body.detail[0]).toMatchObject({
      loc: ['body', 'user_id'],
      msg: 'Field required',
    });
  });

  it('echoes expires_in (default 86400) and signs the documented claims', async () => {
    const dflt = await mint({ user_id: 'user-000001' });
    expect(dflt.body.expires_in).toBe(86400);
    const r = await mint({ user_id: 'user-000001', expires_in: 120 });
    expect(r.body).toMatchObject({ token_type: 'bearer', expires_in: 120 });
    const claims = decodeJwt(r.body.access_token);
    expect(claims).toMatchObject({
      token_use: 'user',
      client_id: DEMO_US.client_id,
      user_id: 'user-000001',
      region: 'us',
    });
    // Every claim as openapi.yaml declares them (UserTokenClaims).
    const valid = claimsSchema();
    expect(valid(claims), JSON.stringify(valid.errors)).toBe(true);
    expect(claims.sub).toMatch(/^client_user_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect((claims.exp as number) - (claims.iat as number)).toBe(120);
    expect(decodeJwt(dflt.body.access_token).sub).toBe(claims.sub);
    expect(decodeJwt((await mint({ user_id: 'user-000002' })).body.access_token).sub).not.toBe(claims.sub);
  });

  it('refuses a user token where a partner token is needed (403) and a tampered one (401)', async () => {
    const { user, partner } = await userToken(sim.api, DEMO_US);
    const wrongKind = await mint({ user_id: 'user-000001' }, user);
    expect(wrongKind.status).toBe(403);
    expect(wrongKind.body.detail).toBe('WRONG_TOKEN_KIND');
    const [h, p, s] = partner.split('.');
    const tampered = `${h}.${p}.${s!.slice(0, -2)}${s!.endsWith('AA') ? 'BB' : 'AA'}`;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(partner), client_id: 'x' })).toString('base64url')}.${s}`;
    for (const t of [tampered, forged, 'not-a-jwt']) {
      const r = await mint({ user_id: 'user-000001' }, t);
      expect(r.status).toBe(401);
      expect(r.body.detail).toBe('INVALID_TOKEN');
    }
    const none = await http('POST', `${sim.api}/open/partner/users/access-token`, {
      json: { user_id: 'user-000001' },
    });
    expect(none.status).toBe(401);
    expect(none.body.detail).toBe('MISSING_CREDENTIALS');
  });

  it("refuses another region's token with 401 CLIENT_USER_NOT_FOUND", async () => {
    const jp = (await exchange(sim.apiJp, DEMO_JP.client_id, DEMO_JP.secret_key)).body.access_token;
    const r = await mint({ user_id: 'user-000001' }, jp);
    expect(r.status).toBe(401);
    expect(r.body.detail).toBe('CLIENT_USER_NOT_FOUND');
    expect(r.body.message).toContain(
      'partner token is valid, but its app exists in the JP region: send it to /jp/developer/api',
    );
  });

  it('expires tokens when the clock passes expires_in', async () => {
    // Frozen: iat is in whole seconds, so a running clock could cross exp a few ms early.
    await http('POST', `${sim.admin}/clock`, { json: { freeze: true } });
    const partner = (await exchange(sim.api, DEMO_US.client_id, DEMO_US.secret_key)).body.access_token;
    expect((await mint({ user_id: 'user-000001' }, partner)).status).toBe(200);
    await http('POST', `${sim.admin}/clock`, { json: { advance_ms: 3599_000 } });
    expect((await mint({ user_id: 'user-000001' }, partner)).status).toBe(200);
    await http('POST', `${sim.admin}/clock`, { json: { advance_ms: 2_000 } });
    const r = await mint({ user_id: 'user-000001' }, partner);
    expect(r.status).toBe(401);
    expect(r.body.detail).toBe('TOKEN_EXPIRED');
    // Which token, when on the app's clock, and where a new one comes from.
    expect(r.body.message).toMatch(
      /^The partner token expired at \d{4}-\d\d-\d\dT[\d:.]+Z on the app's clock \(now [^)]+\): get a new one from POST \/oauth\/partner\/access-token/,
    );
    await http('POST', `${sim.admin}/reset`);
  });

  it('says a user token expired, when on the app clock, and how to mint a new one', async () => {
    await http('POST', `${sim.admin}/clock`, { json: { freeze: true } });
    const { user } = await userToken(sim.api, DEMO_US);
    // The app clock's expiry (`exp` itself is on the real clock by default).
    const exp = (decodeJwt(user) as { app_exp: number }).app_exp;
    await http('POST', `${sim.admin}/clock`, { json: { advance_ms: 40 * 24 * 3600_000 } });
    const r = await http<{ detail: string; message: string }>(
      'GET',
      `${sim.api}/open/partner/sdk/binding?sn=888812345678`,
      { headers: bearer(user) },
    );
    expect(r.status).toBe(401);
    expect(r.body.detail).toBe('TOKEN_EXPIRED');
    expect(r.body.message).toContain(`The user token expired at ${new Date(exp * 1000).toISOString()}`);
    expect(r.body.message).toContain('POST /open/partner/users/access-token');
    await http('POST', `${sim.admin}/reset`);
  });
});
