import { expect } from 'vitest';
import { basic, exchange, jwtClaims, mintUserToken, partnerToken, userToken } from './lib/flows.js';
import { registerSecret } from './lib/redact.js';
import { call, errorCode } from './lib/request.js';
import { contractSuite, scenario } from './lib/suite.js';

contractSuite('tokens', () => {
  scenario(
    'getPartnerToken: an empty form body and a JSON {} body both issue a bearer token',
    {},
    async (t) => {
      for (const body of [{ form: {} }, { json: {} }]) {
        const r = await exchange(t, 200, { body });
        registerSecret(r.body.access_token);
        registerSecret(r.body.refresh_token);
        expect(r.body.token_type).toBe('bearer');
        expect(r.body.expires_in).toBeGreaterThan(0);
      }
    },
  );

  scenario(
    'getPartnerToken: a wrong secret and a missing Authorization header get 401 CLIENT_NOT_FOUND',
    {},
    async (t) => {
      const wrong = await exchange(t, 401, { secret: `${t.app.secret_key}-wrong` });
      expect(errorCode(wrong)).toBe('CLIENT_NOT_FOUND');
      expect(wrong.text).not.toContain('access_token');
      await call(t, { op: 'getPartnerToken', form: {}, expect: 401 });
    },
  );

  scenario(
    'refreshPartnerToken: a refresh token works once, then 401 INVALID_REFRESH_TOKEN',
    {},
    async (t) => {
      const first = await exchange(t, 200);
      registerSecret(first.body.refresh_token);
      const refresh = (token: string, expectStatus: number) =>
        call(t, {
          op: 'refreshPartnerToken',
          headers: basic(t.app.client_id, t.app.secret_key),
          form: { refresh_token: token },
          expect: expectStatus,
        });
      const second = await refresh(first.body.refresh_token, 200);
      registerSecret(second.body.refresh_token);
      expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
      expect(errorCode(await refresh(first.body.refresh_token, 401))).toBe('INVALID_REFRESH_TOKEN');
    },
  );

  scenario('refreshPartnerToken: a missing refresh_token is a 422 naming the field', {}, async (t) => {
    const r = await call(t, {
      op: 'refreshPartnerToken',
      headers: basic(t.app.client_id, t.app.secret_key),
      json: {},
      expect: 422,
    });
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain('body.refresh_token');
  });

  scenario('createUserToken: echoes expires_in and signs the documented JWT claims', {}, async (t) => {
    const r = await mintUserToken(t, await partnerToken(t), { user_id: t.userId, expires_in: 600 }, 200);
    registerSecret(r.body.access_token);
    expect(r.body).toMatchObject({ token_type: 'bearer', expires_in: 600 });
    const claims = jwtClaims(r.body.access_token);
    expect(claims.sub).toMatch(/^client_user_/);
    expect(claims.client_id).toBe(t.app.client_id);
    expect(claims.token_use).toBe('user');
  });

  scenario('createUserToken: user_id of 5 or 121 characters is a 422 naming body.user_id', {}, async (t) => {
    const partner = await partnerToken(t);
    for (const len of [5, 121]) {
      const r = await mintUserToken(t, partner, { user_id: 'u'.repeat(len) }, 422);
      expect(r.body.detail[0].loc).toEqual(['body', 'user_id']);
    }
  });

  scenario(
    'createUserToken: no token, a malformed token get 401; a user token gets 403 WRONG_TOKEN_KIND',
    {},
    async (t) => {
      const json = { user_id: t.userId };
      await mintUserToken(t, undefined, json, 401);
      expect(errorCode(await mintUserToken(t, 'not-a-jwt', json, 401))).toBe('INVALID_TOKEN');
      const wrong = await mintUserToken(t, await userToken(t), json, 403);
      expect(errorCode(wrong)).toBe('WRONG_TOKEN_KIND');
    },
  );

  scenario(
    'createUserToken: an expired partner token gets 401 TOKEN_EXPIRED',
    { needs: ['control'] },
    async (t) => {
      const issued = await exchange(t, 200);
      const partner: string = issued.body.access_token;
      registerSecret(partner);
      await t.control!.advanceClock((issued.body.expires_in + 60) * 1000);
      const r = await mintUserToken(t, partner, { user_id: t.userId }, 401);
      expect(errorCode(r)).toBe('TOKEN_EXPIRED');
    },
  );

  scenario(
    'a token of the other region gets 401 CLIENT_USER_NOT_FOUND',
    { needs: ['control'] },
    async (t) => {
      const other = t.region === 'us' ? 'jp' : 'us';
      const app = await t.control!.createApp({ client_id: t.uniqueId('contract-other'), region: other });
      registerSecret(app.secret_key);
      const otherApi =
        other === 'jp'
          ? t.api.replace('/developer/api', '/jp/developer/api')
          : t.api.replace('/jp/developer/api', '/developer/api');
      const foreign = await partnerToken({ ...t, api: otherApi }, app);
      const r = await mintUserToken(t, foreign, { user_id: t.userId }, 401);
      expect(errorCode(r)).toBe('CLIENT_USER_NOT_FOUND');
    },
  );
});
