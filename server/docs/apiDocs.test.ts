import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bearer, http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { withServers } from './servedSpec.js';

let s: TestServer;
let pub: TestServer;
beforeAll(async () => {
  s = await startTestServer({ adminToken: 'docs-token' });
  pub = await startTestServer({ publicUrl: 'https://sim.example.test:8443' });
});
afterAll(async () => {
  await s?.stop();
  await pub?.stop();
});

/** Every URL the page makes the browser load: src and href attributes. */
const referenced = (html: string) => [...html.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/gi)].map((m) => m[1]!);

describe('GET /docs', () => {
  it('answers an HTML page whose every asset is on the same origin, and serves those assets', async () => {
    const r = await http('GET', `${s.url}/docs`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const urls = referenced(r.text);
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const u of urls) {
      // Same origin: resolving against the page must not change the host.
      expect(new URL(u, `${s.url}/docs`).origin, u).toBe(s.url);
      expect(u).not.toMatch(/^(?:[a-z]+:)?\/\//i);
    }
    for (const u of urls) {
      const asset = await fetch(new URL(u, s.url));
      expect(asset.status, u).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, u).toBeGreaterThan(100);
    }
    const bundle = await fetch(new URL(urls.find((u) => u.endsWith('swagger-ui-bundle.js'))!, s.url));
    expect(bundle.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable/);
  });

  it('tells the browser to load nothing from another origin', async () => {
    const csp = (await http('GET', `${s.url}/docs`)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/https?:\/\//);
    const init = await http('GET', `${s.url}/docs/init.js`);
    expect(init.status).toBe(200);
    expect(init.text).toContain('validatorUrl: null');
    expect(init.text).not.toMatch(/https?:\/\//);
  });

  it('serves only the viewer files of the package, not its demo page', async () => {
    const html = (await http('GET', `${s.url}/docs`)).text;
    const assets = referenced(html)
      .find((u) => u.endsWith('swagger-ui.css'))!
      .replace(/\/[^/]+$/, '');
    expect((await http('GET', `${s.url}${assets}/index.html`)).status).toBe(404);
    expect((await http('GET', `${s.url}${assets}/package.json`)).status).toBe(404);
  });
});

describe('GET /openapi.yaml', () => {
  it('names the address it was fetched from as the US and JP servers, storage included', async () => {
    const r = await http('GET', `${s.url}/openapi.yaml`);
    expect(r.status).toBe(200);
    const doc = parse(r.text);
    expect(doc.servers.map((x: { url: string }) => x.url)).toEqual([
      `${s.url}/developer/api`,
      `${s.url}/jp/developer/api`,
    ]);
    expect(doc.paths['/uploads/{file_id}'].servers[0].url).toBe(`${s.url}/storage`);
    expect(r.text).toContain('operationId: '); // the document itself, comments and all
    const viaLocalhost = parse(
      (await http('GET', `${s.url.replace('127.0.0.1', 'localhost')}/openapi.yaml`)).text,
    );
    expect(viaLocalhost.servers[0].url).toMatch(/^http:\/\/localhost:\d+\/developer\/api$/);
  });

  it('names --public-url when it is set', async () => {
    const doc = parse((await http('GET', `${pub.url}/openapi.yaml`)).text);
    expect(doc.servers[1].url).toBe('https://sim.example.test:8443/jp/developer/api');
  });

  it('does the same for the control API document', async () => {
    const r = await http('GET', `${s.admin}/openapi.yaml`, { headers: bearer('docs-token') });
    expect(r.status).toBe(200);
    expect(parse(r.text).servers).toEqual([{ url: `${s.url}/__admin`, description: expect.any(String) }]);
  });
});

describe('withServers', () => {
  it('replaces only the top-level servers block and keeps the rest byte for byte', () => {
    const src = 'openapi: 3.1.0\nservers:\n  - url: http://a\n    description: A\n# kept\npaths: {}\n';
    const out = withServers(src, [{ url: 'http://b:1/x', description: 'B' }], 'http://b:1');
    expect(out).toBe(
      'openapi: 3.1.0\nservers:\n  - url: "http://b:1/x"\n    description: "B"\n# kept\npaths: {}\n',
    );
  });
});
