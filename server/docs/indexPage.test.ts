import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('/ and /__admin in a browser', () => {
  let sim: TestServer;
  beforeAll(async () => {
    sim = await startTestServer();
  });
  afterAll(() => sim.stop());

  it('answers a browser at / with a page linking the dashboard, /docs, the control API document and /ca', async () => {
    const r = await http('GET', `${sim.url}/`, { headers: { accept: BROWSER } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(r.headers.get('vary')).toContain('Accept');
    const links = [...r.text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual(expect.arrayContaining(['/__admin/ui', '/docs', '/__admin/openapi.yaml', '/ca']));
    expect(r.text).toMatch(/\/ca">[^<]*<\/a>: only in an HTTPS mode/);
    // Every link but /ca (served in an HTTPS mode only) answers here.
    for (const link of links.filter((l) => l?.startsWith('/') && l !== '/ca'))
      expect((await http('GET', `${sim.url}${link}`)).status, link).toBe(200);
  });

  it('gives API clients the same JSON index as before', async () => {
    for (const accept of ['*/*', 'application/json']) {
      const r = await http('GET', `${sim.url}/`, { headers: { accept } });
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.body).toMatchObject({
        name: 'partner-sim',
        admin: `${sim.url}/__admin`,
        docs: `${sim.url}/docs`,
      });
    }
  });

  it('redirects a browser at /__admin to the dashboard; the control API still answers JSON', async () => {
    for (const path of ['/__admin', '/__admin/']) {
      const r = await fetch(`${sim.url}${path}`, { headers: { accept: BROWSER }, redirect: 'manual' });
      expect(r.status, path).toBe(302);
      expect(r.headers.get('location')).toBe('/__admin/ui');
    }
    const api = await http('GET', `${sim.url}/__admin`);
    expect(api.status).toBe(404);
    expect(api.body.detail).toBe('NOT_FOUND');
  });
});
