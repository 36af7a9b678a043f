import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from '../domain/jwt.js';
import { basicAuth, DEMO_JP, DEMO_US, http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// Refresh as the two docs pages show it: the API reference sends Basic and the form field, the
// quickstart's example the form field alone. Default: the reference; --refresh-auth optional
// takes the quickstart's request too.

let reference: TestServer;
let quickstart: TestServer;
beforeAll(async () => {
  [reference, quickstart] = await Promise.all([
    startTestServer(),
    startTestServer({ refreshAuth: 'optional' }),
  ]);
});
afterAll(() => Promise.all([reference.stop(), quickstart.stop()]));

const pair = async (api: string, app = DEMO_US) =>
  (
    await http('POST', `${api}/oauth/partner/access-token`, {
      headers: basicAuth(app.client_id, app.secret_key),
      form: {},
    })
  ).body as { refresh_token: string };

const refresh = (api: string, token: string, headers: Record<string, string> = {}) =>
  http('POST', `${api}/oauth/partner/access-token/refresh`, { headers, form: { refresh_token: token } });

describe('refresh without Basic auth', () => {
  it('is refused by default (the token stays usable) and accepted for the token’s own app under optional', async () => {
    const kept = await pair(reference.api);
    const refused = await refresh(reference.api, kept.refresh_token);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('CLIENT_NOT_FOUND');
    const basic = basicAuth(DEMO_US.client_id, DEMO_US.secret_key);
    expect((await refresh(reference.api, kept.refresh_token, basic)).status).toBe(200);

    const first = await pair(quickstart.api);
    const next = await refresh(quickstart.api, first.refresh_token);
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    expect(decodeJwt(next.body.access_token)).toMatchObject({ client_id: DEMO_US.client_id, region: 'us' });
    expect(next.body.refresh_token).not.toBe(first.refresh_token);
    // Still once only, and only tokens this region issued.
    const again = await refresh(quickstart.api, first.refresh_token);
    expect([again.status, again.body.detail]).toEqual([401, 'INVALID_REFRESH_TOKEN']);
    const unknown = await refresh(quickstart.api, 'rt_nothing_like_it');
    expect([unknown.status, unknown.body.detail]).toEqual([401, 'INVALID_REFRESH_TOKEN']);
    const jp = await pair(quickstart.apiJp, DEMO_JP);
    const elsewhere = await refresh(quickstart.api, jp.refresh_token);
    expect([elsewhere.status, elsewhere.body.detail]).toEqual([401, 'INVALID_REFRESH_TOKEN']);
    expect((await refresh(quickstart.apiJp, jp.refresh_token)).status).toBe(200);
    // Basic, when sent, is checked as always.
    const wrong = await refresh(
      quickstart.api,
      next.body.refresh_token,
      basicAuth(DEMO_US.client_id, 'nope'),
    );
    expect([wrong.status, wrong.body.detail]).toEqual([401, 'CLIENT_NOT_FOUND']);
    expect((await refresh(quickstart.api, next.body.refresh_token, basic)).status).toBe(200);
  });
});
