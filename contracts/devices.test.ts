import { expect } from 'vitest';
import { bearer, jwtClaims, partnerToken, userToken } from './lib/flows.js';
import { call, errorCode } from './lib/request.js';
import { contractSuite, deviceIn, scenario } from './lib/suite.js';
import type { DeviceRef, Target } from './target/types.js';

const binding = (t: Target, token: string, d: DeviceRef, expectStatus = 200) =>
  call(t, {
    op: 'getDeviceBinding',
    headers: bearer(token),
    query: { type: d.type, sn: d.sn },
    expect: expectStatus,
  });

const sdkCall = (t: Target, op: string, token: string, d: DeviceRef, expectStatus: number) =>
  call(t, { op, headers: bearer(token), json: { type: d.type, sn: d.sn }, expect: expectStatus });

const locs = (body: { detail: { loc: (string | number)[] }[] }) => body.detail.map((d) => d.loc.join('.'));

contractSuite('devices', () => {
  scenario(
    'getDeviceBinding: a device bound to another account answers is_bind true with its history',
    {},
    async (t, ctx) => {
      const d = await deviceIn(t, ctx, 'boundOther');
      const r = await binding(t, await userToken(t), d);
      expect(r.body.is_bind).toBe(true);
      expect(r.body.bind_history.length).toBeGreaterThan(0);
    },
  );

  scenario(
    'getDeviceBinding: an unbound device answers is_bind false (recovery allowed)',
    {},
    async (t, ctx) => {
      const d = await deviceIn(t, ctx, 'unbound');
      const r = await binding(t, await userToken(t), d);
      expect(r.body.is_bind).toBe(false);
    },
  );

  scenario(
    'getDeviceBinding: bind_history has one entry per bind event, newest first, duplicates kept',
    { needs: ['control'] },
    async (t, ctx) => {
      const d = await deviceIn(t, ctx, 'unknown');
      const [a, b] = [
        'client_user_0f1e2d3c-0000-4000-8000-00000000000a',
        'client_user_0f1e2d3c-0000-4000-8000-00000000000b',
      ];
      // Clients de-duplicate; the service must not do it for them (live histories repeat 50+ times).
      const history = [a, b, a, a];
      await t.control!.putDevice(d.sn, { is_bind: false, bind_history: history });
      expect((await binding(t, await userToken(t), d)).body.bind_history).toEqual(history);
    },
  );

  scenario('getDeviceBinding: a signed, never bound device answers is_bind null', {}, async (t, ctx) => {
    const d = await deviceIn(t, ctx, 'neverBound');
    const r = await binding(t, await userToken(t), d);
    expect(r.body.is_bind).toBeNull();
  });

  scenario('getDeviceBinding: an unknown serial is a bare 404 with no body', {}, async (t, ctx) => {
    const d = await deviceIn(t, ctx, 'unknown');
    const r = await binding(t, await userToken(t), d, 404);
    expect(r.text).toBe('');
  });

  scenario(
    'getDeviceBinding: a type contradicting the prefix, a bad prefix and a missing sn are 422s',
    {},
    async (t, ctx) => {
      const d = await deviceIn(t, ctx, 'unknown');
      const user = await userToken(t);
      const wrongType = d.type === 'notepro' ? 'notepins' : 'notepro';
      const contradiction = await binding(t, user, { type: wrongType, sn: d.sn }, 422);
      expect(locs(contradiction.body).some((l) => l.startsWith('query.'))).toBe(true);
      const badPrefix = await binding(t, user, { type: 'notepro', sn: `880${d.sn.slice(3)}` }, 422);
      expect(locs(badPrefix.body)).toContain('query.sn');
      const missing = await call(t, {
        op: 'getDeviceBinding',
        headers: bearer(user),
        query: { type: 'notepro' },
        expect: 422,
      });
      expect(locs(missing.body)).toContain('query.sn');
    },
  );

  scenario(
    'getDeviceBinding: no token is a 401, a partner token a 403 WRONG_TOKEN_KIND',
    {},
    async (t, ctx) => {
      const d = await deviceIn(t, ctx, 'unknown');
      await call(t, { op: 'getDeviceBinding', query: { type: d.type, sn: d.sn }, expect: 401 });
      const r = await binding(t, await partnerToken(t), d, 403);
      expect(errorCode(r)).toBe('WRONG_TOKEN_KIND');
    },
  );

  scenario(
    'signDeviceSerial: a new serial becomes signed, never bound (is_bind null); signing again changes nothing',
    { needs: ['mutates'] },
    async (t, ctx) => {
      const d = await deviceIn(t, ctx, 'unknown');
      const user = await userToken(t);
      const first = await sdkCall(t, 'signDeviceSerial', user, d, 200);
      expect(first.body).toEqual({
        signature: expect.stringMatching(/^[A-Za-z0-9+/]{342}==$/), // RSA-2048, standard base64
        is_bind: null,
        bind_history: [],
      });
      expect((await binding(t, user, d)).body.is_bind).toBeNull();
      expect((await sdkCall(t, 'signDeviceSerial', user, d, 200)).body).toEqual(first.body);
    },
  );

  scenario(
    'verifyDeviceSignature: the signature sn-sign answers is valid for its serial, a tampered one is not',
    { needs: ['mutates'] },
    async (t, ctx) => {
      const d = await deviceIn(t, ctx, 'unknown');
      const user = await userToken(t);
      const { signature } = (await sdkCall(t, 'signDeviceSerial', user, d, 200)).body as {
        signature: string;
      };
      const verify = (sig: string) =>
        call(t, {
          op: 'verifyDeviceSignature',
          headers: bearer(user),
          json: { ...d, signature: sig },
          expect: 200,
        });
      expect((await verify(signature)).body).toEqual({ is_valid: true });
      const tampered = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
      expect((await verify(tampered)).body).toEqual({ is_valid: false });
    },
  );

  scenario('generateSdkKeys: an RSA key pair in PEM, snake_case and camelCase', {}, async (t) => {
    const r = await call(t, { op: 'generateSdkKeys', headers: bearer(await userToken(t)), expect: 200 });
    expect(r.body.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(r.body.public_key).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(r.body.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(r.body.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  scenario(
    'bindDevice/unbindDevice: each bind puts the caller first in the history; unbind keeps the history; both answers name the device (type, sn)',
    { needs: ['mutates'] },
    async (t, ctx) => {
      const d = await deviceIn(t, ctx, 'unbound');
      const user = await userToken(t);
      const sub = jwtClaims(user).sub;
      const before: string[] = (await binding(t, user, d)).body.bind_history;
      const once = await sdkCall(t, 'bindDevice', user, d, 200);
      // Live answers {type, sn, is_bind, ...}: clients may read the device back from it.
      expect(once.body).toMatchObject({ type: d.type, sn: d.sn.toUpperCase(), is_bind: true });
      expect(once.body.bind_history).toEqual([sub, ...before]);
      const twice = await sdkCall(t, 'bindDevice', user, d, 200);
      expect(twice.body.bind_history).toEqual([sub, sub, ...before]);
      const unbound = await sdkCall(t, 'unbindDevice', user, d, 200);
      expect(unbound.body).toEqual({
        type: d.type,
        sn: d.sn.toUpperCase(),
        is_bind: false,
        bind_history: [sub, sub, ...before],
      });
      // Idempotent: unbinding an unbound device succeeds and leaves it unbound.
      expect((await sdkCall(t, 'unbindDevice', user, d, 200)).body.is_bind).toBe(false);
      expect((await binding(t, user, d)).body.is_bind).toBe(false);
    },
  );

  scenario(
    'bindDevice/unbindDevice: a device bound to another account is refused with 403 DEVICE_BOUND',
    { needs: ['mutates'] },
    async (t, ctx) => {
      const d = await deviceIn(t, ctx, 'boundOther');
      const user = await userToken(t);
      expect(errorCode(await sdkCall(t, 'bindDevice', user, d, 403))).toBe('DEVICE_BOUND');
      expect(errorCode(await sdkCall(t, 'unbindDevice', user, d, 403))).toBe('DEVICE_BOUND');
      expect((await binding(t, user, d)).body.is_bind).toBe(true);
    },
  );

  scenario(
    'bindDevice/unbindDevice: a serial never signed is a 404 DEVICE_NOT_FOUND; a missing sn a 422',
    { needs: ['mutates'] },
    async (t, ctx) => {
      const d = await deviceIn(t, ctx, 'unknown');
      const user = await userToken(t);
      expect(errorCode(await sdkCall(t, 'bindDevice', user, d, 404))).toBe('DEVICE_NOT_FOUND');
      expect(errorCode(await sdkCall(t, 'unbindDevice', user, d, 404))).toBe('DEVICE_NOT_FOUND');
      const r = await call(t, {
        op: 'bindDevice',
        headers: bearer(user),
        json: { type: d.type },
        expect: 422,
      });
      expect(locs(r.body)).toContain('body.sn');
    },
  );
});
