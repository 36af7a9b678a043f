import { createPrivateKey, createPublicKey, privateDecrypt, publicEncrypt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, DEMO_JP, DEMO_US, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';

// The SDK's cloud calls as the SDK makes them: sn-sign → {signature}, sn-verify tells a good
// signature from a tampered one, gen-key answers a working RSA pair; user token, both regions.

let sim: TestServer;
let us: string;
let jp: string;
beforeAll(async () => {
  sim = await startTestServer();
  us = (await userToken(sim.api, DEMO_US, 'sdk-keys-user')).user;
  jp = (await userToken(sim.apiJp, DEMO_JP, 'sdk-keys-user')).user;
});
afterAll(() => sim.stop());

const post = (api: string, token: string, op: string, json?: unknown) =>
  http('POST', `${api}/open/partner/sdk/${op}`, { headers: bearer(token), ...(json ? { json } : {}) });

describe('sn-sign and sn-verify', () => {
  it.each([
    ['us', () => [sim.api, us] as const],
    ['jp', () => [sim.apiJp, jp] as const],
  ])('signs a serial and verifies it, refusing a tampered signature (%s)', async (_r, where) => {
    const [api, token] = where();
    const d = { type: 'notepro', sn: '8810KEYS00000001' };
    const signed = await post(api, token, 'sn-sign', d);
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ is_bind: null, bind_history: [] });
    expect((await post(api, token, 'sn-sign', d)).body.signature).toBe(signed.body.signature);
    const sig: string = signed.body.signature;
    // What a public provisioner insists on: strict standard base64, exactly 256 bytes (RSA-2048).
    expect(sig).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const bytes = Buffer.from(sig, 'base64');
    expect([bytes.length, bytes.toString('base64')]).toEqual([256, sig]);
    expect((await post(api, token, 'sn-verify', { ...d, signature: sig })).body).toEqual({ is_valid: true });
    const unpadded = sig.replace(/=+$/, '');
    expect((await post(api, token, 'sn-verify', { ...d, signature: unpadded })).body).toEqual({
      is_valid: false,
    });
    const tampered = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    expect((await post(api, token, 'sn-verify', { ...d, signature: tampered })).body).toEqual({
      is_valid: false,
    });
    expect(
      (await post(api, token, 'sn-verify', { ...d, sn: '8810KEYS00000002', signature: sig })).body,
    ).toEqual({
      is_valid: false,
    });
    expect((await post(api, token, 'sn-verify', { ...d, type: 'notepins', signature: sig })).status).toBe(
      422,
    );
  });

  it("signs with each region's own key: a US signature is not valid in JP", async () => {
    const d = { type: 'notepro', sn: '8810KEYS00000003' };
    const signedUs = (await post(sim.api, us, 'sn-sign', d)).body.signature;
    const signedJp = (await post(sim.apiJp, jp, 'sn-sign', d)).body.signature;
    expect(signedUs).not.toBe(signedJp);
    expect((await post(sim.apiJp, jp, 'sn-verify', { ...d, signature: signedUs })).body).toEqual({
      is_valid: false,
    });
  });

  it('keeps signing with the same stored key after a restart on the same data folder', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const d = { type: 'notepins', sn: '8820KEYS00000004' };
      const sign = async () => {
        const s = await startTestServer({ inMemory: false, dataDir: dir });
        try {
          const token = (await userToken(s.api, DEMO_US, 'sdk-keys-restart')).user;
          return (await post(s.api, token, 'sn-sign', d)).body.signature as string;
        } finally {
          await s.stop();
        }
      };
      const first = await sign();
      expect(await sign()).toBe(first);
    } finally {
      await cleanup();
    }
  });

  it('refuses another region token and a missing token', async () => {
    const d = { type: 'notepro', sn: '8810KEYS00000001', signature: 'x' };
    const r = await post(sim.apiJp, us, 'sn-verify', d);
    expect([r.status, r.body.detail]).toEqual([401, 'CLIENT_USER_NOT_FOUND']);
    expect((await http('POST', `${sim.api}/open/partner/sdk/sn-verify`, { json: d })).status).toBe(401);
  });
});

describe('gen-key', () => {
  it('answers a working RSA key pair in PEM, fresh per call', async () => {
    const a = await post(sim.api, us, 'gen-key');
    expect(a.status).toBe(200);
    // The SDK's response class is snake_case; camelCase beside it, the same pair.
    expect([a.body.public_key, a.body.private_key]).toEqual([a.body.publicKey, a.body.privateKey]);
    const pub = createPublicKey(a.body.publicKey);
    const priv = createPrivateKey(a.body.privateKey);
    expect([pub.asymmetricKeyType, pub.asymmetricKeyDetails?.modulusLength]).toEqual(['rsa', 2048]);
    expect(privateDecrypt(priv, publicEncrypt(pub, Buffer.from('hello'))).toString()).toBe('hello');
    expect((await post(sim.api, us, 'gen-key')).body.publicKey).not.toBe(a.body.publicKey);
  });

  it('answers a US token on the JP base URL 401 CLIENT_USER_NOT_FOUND (the Android default)', async () => {
    const r = await post(sim.apiJp, us, 'gen-key');
    expect([r.status, r.body.detail]).toEqual([401, 'CLIENT_USER_NOT_FOUND']);
  });
});
