import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';

// The CA one tap away: the page and its downloads over plain HTTP, never the key; and a clear
// 404 where there is no CA.
let sim: TestServer;
let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await tempDataDir();
  // --https-only: the page must stay plain, since a device fetches it before it trusts the CA.
  sim = await startTestServer({ https: true, httpsOnly: true, caDir: join(tmp.dir, 'ca') });
}, 60_000);
afterAll(async () => {
  await sim.stop();
  await tmp.cleanup();
});

describe('GET /ca with --https', () => {
  it('is a page with per-platform steps and both downloads, reachable over plain HTTP', async () => {
    const port = new URL(sim.url).port;
    const res = await fetch(`${sim.url}/ca`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await res.text();
    for (const s of [
      `http://10.0.2.2:${port}/ca`,
      'href="/ca/partner-sim-ca.crt"',
      'href="/ca/partner-sim-ca.pem"',
      'Android emulator',
      'iOS simulator',
      'Desktop',
      '--proxy-passthrough',
    ])
      expect(page).toContain(s);
    const pem = await readFile(sim.https!.caCertPath, 'utf8');
    expect(page).toContain(new X509Certificate(pem).fingerprint256);
    expect(page).not.toContain('PRIVATE KEY');
  });

  it("names the port the device opened it on (a container's published port), and only a number", async () => {
    const pageFor = (host: string) =>
      new Promise<string>((resolve, reject) => {
        const { port } = new URL(sim.url);
        get({ host: '127.0.0.1', port, path: '/ca', headers: { host } }, (res) => {
          let body = '';
          res.on('data', (c) => {
            body += c;
          });
          res.on('end', () => resolve(body));
        }).on('error', reject);
      });
    expect(await pageFor('10.0.2.2:8080')).toContain('http://10.0.2.2:8080/ca');
    const odd = await pageFor('<script>:x');
    expect(odd).not.toContain('<script>');
    expect(odd).toContain(`http://10.0.2.2:${new URL(sim.url).port}/ca`);
  });

  it('serves the certificate as PEM and as DER with their content types, never the key', async () => {
    const pem = await readFile(sim.https!.caCertPath, 'utf8');
    const p = await fetch(`${sim.url}/ca/partner-sim-ca.pem`);
    expect(p.status).toBe(200);
    expect(p.headers.get('content-type')).toBe('application/x-pem-file');
    expect(p.headers.get('content-disposition')).toBe('attachment; filename="partner-sim-ca.pem"');
    const servedPem = await p.text();
    expect(servedPem).toBe(pem);
    expect(servedPem).not.toContain('PRIVATE KEY');
    const c = await fetch(`${sim.url}/ca/partner-sim-ca.crt`);
    expect(c.status).toBe(200);
    expect(c.headers.get('content-type')).toBe('application/x-x509-ca-cert');
    const der = Buffer.from(await c.arrayBuffer());
    expect(der.equals(new X509Certificate(pem).raw)).toBe(true);
    expect(new X509Certificate(der).ca).toBe(true);
    // Nothing else in the folder is reachable: the key's name is an unknown path.
    const key = await fetch(`${sim.url}/ca/partner-sim-ca.key`);
    expect(key.status).toBe(404);
    expect(await key.text()).not.toContain('PRIVATE KEY');
  });

  it('other direct plain-HTTP requests still get the --https-only answer', async () => {
    const res = await fetch(`${sim.url}/__admin/health`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe('HTTPS_REQUIRED');
  });
});

describe('GET /ca without --https', () => {
  it('answers 404 JSON saying how to get a CA, for the page and the downloads', async () => {
    const plain = await startTestServer();
    try {
      for (const path of ['/ca', '/ca/partner-sim-ca.pem', '/ca/partner-sim-ca.crt']) {
        const res = await fetch(`${plain.url}${path}`);
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const body = (await res.json()) as { detail: string; message: string };
        expect(body.detail).toBe('CA_NOT_ENABLED');
        expect(body.message).toContain('partner-sim serve --https');
      }
    } finally {
      await plain.stop();
    }
  });
});
