import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from '../domain/jwt.js';
import { bearer, DEMO_US, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// A public Python client (PinPoint, live-service notes fifth pass) takes a user token only if
// `sub` is there, `user_id` and `client_id` are its own and `exp` lies within
// [its wall clock + 60 s, wall clock + ttl + 300 s]. Moving an app's clock must not make it
// refuse new tokens, while TOKEN_EXPIRED still follows the app's clock.

const TTL = 86_400;
const DAY_MS = 86_400_000;

function pinPointAccepts(token: string, userId: string, clientId: string): boolean {
  const c = decodeJwt(token) as { sub?: string; user_id?: string; client_id?: string; exp?: number };
  const now = Date.now() / 1000;
  return (
    Boolean(c.sub) &&
    (c.user_id ?? c.sub) === userId &&
    c.client_id === clientId &&
    typeof c.exp === 'number' &&
    c.exp >= now + 60 &&
    c.exp <= now + TTL + 300
  );
}

let wall: TestServer;
let app: TestServer;
beforeAll(async () => {
  [wall, app] = await Promise.all([startTestServer(), startTestServer({ tokenClaimsClock: 'app' })]);
});
afterAll(() => Promise.all([wall.stop(), app.stop()]));

const moveBy = (s: TestServer, ms: number) =>
  http('POST', `${s.admin}/clock`, { json: { client_id: DEMO_US.client_id, advance_ms: ms } });
const binding = (s: TestServer, user: string) =>
  http('GET', `${s.api}/open/partner/sdk/binding?sn=881812345678`, { headers: bearer(user) });

describe('token claims and the app clock', () => {
  it('by default: tokens minted after the app clock moved a day either way pass a wall-clock check; expiry follows the app clock', async () => {
    const user = 'pinpoint-user-01';
    for (const shift of [DAY_MS, -2 * DAY_MS]) {
      expect((await moveBy(wall, shift)).status).toBe(200);
      const token = (await userToken(wall.api, DEMO_US, user)).user;
      expect(pinPointAccepts(token, user, DEMO_US.client_id)).toBe(true);
      // The app's own expiry: valid until its ttl passes on the app's clock, then TOKEN_EXPIRED.
      expect((await binding(wall, token)).status).not.toBe(401);
      await moveBy(wall, TTL * 1000 + 5_000);
      const late = await binding(wall, token);
      expect([late.status, late.body.detail]).toEqual([401, 'TOKEN_EXPIRED']);
      const appExp = (decodeJwt(token) as { app_exp: number }).app_exp;
      expect(late.body.message).toContain(
        `expired at ${new Date(appExp * 1000).toISOString()} on the app's clock`,
      );
    }
  });

  it("--token-claims-clock app: claims on the app's clock, which such a client refuses after a move", async () => {
    const user = 'pinpoint-user-02';
    await moveBy(app, DAY_MS);
    const token = (await userToken(app.api, DEMO_US, user)).user;
    const c = decodeJwt(token) as { iat: number; exp: number; app_exp: number };
    expect(c.exp).toBe(c.app_exp);
    expect(c.iat * 1000).toBeGreaterThan(Date.now() + DAY_MS - 60_000);
    expect(pinPointAccepts(token, user, DEMO_US.client_id)).toBe(false);
    await moveBy(app, TTL * 1000 + 5_000);
    expect((await binding(app, token)).body.detail).toBe('TOKEN_EXPIRED');
  });
});
