import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../config.js';
import { bearer, http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { contentTypeAllowed, hostAllowed, hostnameOf, hostRule, originAllowed } from './adminGuard.js';

describe('hostnameOf', () => {
  it.each([
    ['localhost:4010', 'localhost'],
    ['LOCALHOST.', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['[::1]:4010', '[::1]'],
    ['sim.internal:8080', 'sim.internal'],
  ])('%s → %s', (host, name) => expect(hostnameOf(host)).toBe(name));

  it.each(['', 'a@localhost', 'localhost/x', 'localhost#x', 'local host', '[::1'])('refuses %j', (host) =>
    expect(hostnameOf(host)).toBeUndefined());
});

describe('hostAllowed / originAllowed', () => {
  const plain = hostRule(testConfig());
  const named = hostRule(
    testConfig({ publicUrl: 'https://sim.example.com:8443', allowedHosts: ['ci-sim', 'other.test:99'] }),
  );
  const allowed = (rule = plain, host = '') => hostAllowed(rule, hostnameOf(host));

  it('accepts loopback names and addresses by default', () => {
    for (const h of ['localhost:4010', '127.0.0.1:4010', '127.8.9.10', '[::1]:4010', 'localhost.'])
      expect(allowed(plain, h), h).toBe(true);
  });

  it('refuses any other name, including rebinding look-alikes', () => {
    for (const h of ['evil.example', '127.0.0.1.evil.example', 'localhost.evil.example', '10.0.0.5', ''])
      expect(allowed(plain, h), h).toBe(false);
  });

  it('accepts the --public-url host and --allowed-hosts entries, whatever the port', () => {
    for (const h of ['sim.example.com', 'sim.example.com:1', 'ci-sim:4010', 'other.test'])
      expect(allowed(named, h), h).toBe(true);
    expect(allowed(named, 'example.com')).toBe(false);
  });

  it("accepts the --host address it is bound to, and anything with '*'", () => {
    expect(allowed(hostRule(testConfig({ host: '192.168.1.5' })), '192.168.1.5:4010')).toBe(true);
    expect(allowed(hostRule(testConfig({ host: '0.0.0.0' })), '0.0.0.0')).toBe(false);
    expect(allowed(hostRule(testConfig({ allowedHosts: ['*'] })), 'evil.example')).toBe(true);
  });

  it('judges an Origin by its host; absent passes, null and non-web schemes do not', () => {
    expect(originAllowed(plain, undefined)).toBe(true);
    expect(originAllowed(plain, 'http://localhost:3000')).toBe(true);
    expect(originAllowed(named, 'https://ci-sim')).toBe(true);
    for (const o of [
      'null',
      'https://evil.example',
      'http://127.0.0.1.nip.io',
      'file://',
      'chrome-extension://abc',
    ])
      expect(originAllowed(plain, o), o).toBe(false);
  });

  it("with --allowed-hosts '*' still refuses another site's pages, but not the simulator's own", () => {
    const any = hostRule(testConfig({ allowedHosts: ['*'] }));
    expect(originAllowed(any, 'https://evil.example', 'sim:4010')).toBe(false);
    expect(originAllowed(any, 'http://sim:4010', 'sim:4010')).toBe(true);
    expect(originAllowed(any, 'http://localhost:3000', 'sim:4010')).toBe(true);
    expect(originAllowed(any, undefined, 'sim:4010')).toBe(true);
  });
});

describe('contentTypeAllowed', () => {
  const ok = (method: string, headers: Record<string, string>) => contentTypeAllowed(method, headers);

  it('lets reads through, and JSON or nothing on mutating calls', () => {
    expect(ok('GET', { 'content-type': 'text/plain', 'content-length': '3' })).toBe(true);
    expect(ok('POST', { 'content-type': 'application/json', 'content-length': '2' })).toBe(true);
    expect(ok('PUT', { 'content-type': 'Application/JSON; charset=utf-8', 'content-length': '2' })).toBe(
      true,
    );
    expect(ok('POST', {})).toBe(true);
    expect(ok('DELETE', { 'content-length': '0' })).toBe(true);
  });

  it('refuses what a cross-site form can send, with or without a body, and untyped bodies', () => {
    for (const ct of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain']) {
      expect(ok('POST', { 'content-type': ct, 'content-length': '5' }), ct).toBe(false);
      expect(ok('POST', { 'content-type': ct, 'content-length': '0' }), ct).toBe(false);
    }
    expect(ok('PATCH', { 'content-length': '5' })).toBe(false);
    expect(ok('DELETE', { 'transfer-encoding': 'chunked' })).toBe(false);
  });
});

/** A request with a chosen Host header, which fetch does not let a caller set. */
function raw(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; type: string; body: { detail: unknown; message?: string } | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'] ?? '',
          body: text ? JSON.parse(text) : undefined,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('/__admin behind the guard', () => {
  let s: TestServer;
  const token = bearer('t0ken');
  beforeAll(async () => {
    s = await startTestServer({ adminToken: 't0ken', allowedHosts: ['ci-sim'] });
  });
  afterAll(() => s.stop());
  const appIds = async () =>
    ((await http('GET', `${s.admin}/apps`, { headers: token })).body as { client_id: string }[]).map(
      (a) => a.client_id,
    );

  it('refuses a rebinding Host and a foreign Origin with 403 JSON, before doing anything', async () => {
    await http('POST', `${s.admin}/apps`, { headers: token, json: { client_id: 'keep-me' } });
    const rebind = await raw(`${s.admin}/reset`, 'POST', { ...token, host: 'evil.example:4010' });
    expect(rebind).toMatchObject({ status: 403, body: { detail: 'HOST_NOT_ALLOWED' } });
    expect(rebind.type).toContain('application/json');
    const crossSite = await raw(`${s.admin}/reset`, 'POST', { ...token, origin: 'https://evil.example' });
    expect(crossSite).toMatchObject({ status: 403, body: { detail: 'ORIGIN_NOT_ALLOWED' } });
    expect(await appIds()).toContain('keep-me');
  });

  it('refuses cross-site form bodies with 415 JSON, also without an Origin', async () => {
    await http('POST', `${s.admin}/apps`, { headers: token, json: { client_id: 'keep-me-too' } });
    for (const ct of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=b']) {
      const r = await raw(`${s.admin}/reset`, 'POST', { ...token, 'content-type': ct }, '');
      expect(r, ct).toMatchObject({ status: 415, body: { detail: 'JSON_REQUIRED' } });
    }
    const untyped = await raw(`${s.admin}/apps`, 'POST', token, '{"client_id":"sneaky"}');
    expect(untyped.status).toBe(415);
    expect(await appIds()).toEqual(expect.arrayContaining(['keep-me-too']));
    expect(await appIds()).not.toContain('sneaky');
  });

  it('accepts allowed hosts and origins, and bodiless calls without a content type', async () => {
    const viaName = await raw(`${s.admin}/faults`, 'DELETE', { ...token, host: 'ci-sim:4010' });
    expect(viaName.status).toBe(204);
    const local = await raw(`${s.admin}/clock`, 'GET', { ...token, origin: 'http://localhost:5173' });
    expect(local.status).toBe(200);
    expect((await raw(`${s.admin}/reset`, 'POST', token)).status).toBe(204);
  });

  it('takes the Bearer scheme in any case (RFC 9110), and only with the token it was given', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR'])
      expect(
        (await raw(`${s.admin}/clock`, 'GET', { authorization: `${scheme} t0ken` })).status,
        scheme,
      ).toBe(200);
    for (const auth of [
      'Basic t0ken',
      'bearer t0ken2',
      'bearer T0KEN',
      'Bearer',
      'bearer ',
      't0ken',
      'Bearer t0ken x',
    ])
      expect((await raw(`${s.admin}/clock`, 'GET', { authorization: auth })).status, auth).toBe(401);
  });

  it('answers the health check to anyone, by any Host, with nothing secret', async () => {
    const r = await raw(`${s.admin}/health`, 'GET', { host: '10.1.2.3:4010' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body ?? {}).sort()).toEqual(['status', 'store', 'uptime_s', 'version']);
    expect(JSON.stringify(r.body)).not.toMatch(/t0ken|secret|\/tmp|\/work/);
    // Only the health check: the rest still wants the token and an allowed Host.
    expect((await raw(`${s.admin}/clock`, 'GET', {})).status).toBe(401);
    expect((await raw(`${s.admin}/healthz`, 'GET', { ...token, host: '10.1.2.3' })).status).toBe(403);
  });

  it('serves its own public document without the token (for /docs), still only to allowed hosts', async () => {
    const doc = await http('GET', `${s.admin}/openapi.yaml`);
    expect(doc.status).toBe(200);
    expect(doc.text).toMatch(/^openapi: 3/);
    expect((await raw(`${s.admin}/openapi.yaml`, 'GET', { host: 'evil.example' })).status).toBe(403);
    expect((await raw(`${s.admin}/apps`, 'GET', {})).status).toBe(401);
  });
});
