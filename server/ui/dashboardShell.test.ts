import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { dashboardConfig, renderShell } from './dashboard.js';

// The dashboard's routes over plain HTTP (the browser test drives the page itself).

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer({ adminToken: 'shell-token' });
});
afterAll(() => sim.stop());

describe('/__admin/ui', () => {
  it('serves the shell without the admin token, with the spec-derived config and a self-only CSP', async () => {
    const r = await http('GET', `${sim.url}/__admin/ui`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
    const json = /<script type="application\/json" id="sim-config">(.*?)<\/script>/s.exec(r.text)?.[1];
    const config = JSON.parse(json ?? 'null');
    expect(config.operations).toContain('getDeviceBinding');
    expect(config.statuses).toContain('FAILURE');
    expect(config.faultActions).toContain('wrong_etag');
    // Where an app of each region is called (EU and SG apps exist only under --regions).
    expect(config.regions).toEqual({
      us: '/developer/api',
      jp: '/jp/developer/api',
      eu: '/eu/developer/api',
      sg: '/sg/developer/api',
    });
    // Every script and stylesheet the page names is served by the simulator itself.
    for (const src of r.text.matchAll(/(?:src|href)="([^"]+)"/g)) {
      // The data: favicon, and the section bar's anchors within the page.
      if (src[1] === 'data:,' || src[1]?.startsWith('#')) continue;
      expect(src[1]).toMatch(/^\/__admin\/ui\//);
      expect((await http('GET', `${sim.url}${src[1]}`)).status, src[1]).toBe(200);
    }
  });

  it('serves the modules as JavaScript, answers 404 JSON for unknown names, and keeps data behind the token', async () => {
    const js = await http('GET', `${sim.url}/__admin/ui/dashboard.js`);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const missing = await http('GET', `${sim.url}/__admin/ui/nope.js`);
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('NOT_FOUND');
    expect((await http('GET', `${sim.url}/__admin/ui/..%2Fapp.ts`)).status).toBe(404);
    expect((await http('GET', `${sim.admin}/apps`)).status).toBe(401);
  });

  it('embeds the config so no string in it can close the script element', () => {
    const html = renderShell('<script type="application/json">"SIM_CONFIG"</script>', {
      ...dashboardConfig(),
      operations: ['</script><script>alert(1)</script>'],
    });
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(JSON.parse(html.slice(html.indexOf('>') + 1, html.lastIndexOf('<'))).operations[0]).toBe(
      '</script><script>alert(1)</script>',
    );
  });
});
