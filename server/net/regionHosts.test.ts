import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl } from '../testing/curl.js';
import { withEgressSpy } from '../testing/egressSpy.js';
import { http } from '../testing/http.js';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';
import { InterceptTable } from './interceptTable.js';

// `serve --https`'s proxy and the hosts of the regions live lists as "Coming soon" (EU, SG):
// their names do not resolve on live, so the proxy fails them as a name that does not
// resolve, looking nothing up, unless --regions names them; then it serves them like JP's.

let off: TestServer;
let on: TestServer;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  const a = await tempDataDir();
  const b = await tempDataDir();
  cleanups.push(a.cleanup, b.cleanup);
  // Pass-through on: even then nothing about these names may be looked up.
  off = await startTestServer({ https: true, caDir: `${a.dir}/ca`, proxyPassthrough: true });
  on = await startTestServer({ https: true, caDir: `${b.dir}/ca`, regions: ['us', 'jp', 'eu', 'sg'] });
}, 60_000);
afterAll(async () => {
  await off?.stop();
  await on?.stop();
  for (const c of cleanups) await c();
});

/** Send raw bytes to a listener and read until it closes the connection. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(bytes));
    let got = '';
    s.on('data', (c) => {
      got += c.toString('latin1');
    });
    s.on('close', () => resolve(got));
    s.on('error', reject);
    s.setTimeout(10_000, () => reject(new Error(`no close; got ${JSON.stringify(got)}`)));
  });
}

const portOf = (s: TestServer) => Number(new URL(s.url).port);

describe('the proxy on the default regions', () => {
  it('fails EU and SG hosts as unresolvable names (502, ENOTFOUND, naming --regions), resolving nothing', async () => {
    const answers: string[] = [];
    const seen = await withEgressSpy({}, async () => {
      answers.push(
        await raw(
          portOf(off),
          'CONNECT platform-eu.plaud.ai:443 HTTP/1.1\r\nHost: platform-eu.plaud.ai:443\r\n\r\n',
        ),
        await raw(
          portOf(off),
          'GET http://platform-sg.plaud.ai/developer/api/oauth/partner/access-token HTTP/1.1\r\nHost: platform-sg.plaud.ai\r\nConnection: close\r\n\r\n',
        ),
      );
    });
    expect(seen).toEqual({ lookups: [], blocked: [] });
    for (const [answer, region] of [
      [answers[0]!, 'eu'],
      [answers[1]!, 'sg'],
    ] as const) {
      expect(answer).toMatch(/^HTTP\/1\.1 502 /);
      expect(answer).toContain('PROXY_UPSTREAM_FAILED');
      expect(answer).toContain(`getaddrinfo ENOTFOUND platform-${region}.plaud.ai`);
      expect(answer).toContain(`--regions us,jp,${region}`);
    }
  });

  it('leaves them out of the certificate and of the intercepted hosts', async () => {
    const t = new InterceptTable({ storageHost: undefined, extraHosts: [], bindHost: '127.0.0.1' });
    expect(t.certNames).toContain('platform-jp.plaud.ai');
    expect(t.certNames).not.toContain('platform-eu.plaud.ai');
    expect(t.unresolved('PLATFORM-SG.plaud.ai.')).toBe('sg');
    const proxy = await http('GET', `${off.admin}/proxy`);
    expect(proxy.body.intercepted_hosts).toContain('platform-jp.plaud.ai');
    expect(proxy.body.intercepted_hosts).not.toContain('platform-sg.plaud.ai');
  });
});

describe('the proxy with --regions us,jp,eu,sg', () => {
  it('intercepts platform-sg.plaud.ai: a client through it mints a token in an SG app', async () => {
    const created = await http('POST', `${on.admin}/apps`, { json: { region: 'sg' } });
    expect(created.status).toBe(201);
    const { client_id, secret_key } = created.body;
    const r = await curl(
      '--cacert',
      on.https!.caCertPath,
      '--proxy',
      on.https!.proxy,
      '-u',
      `${client_id}:${secret_key}`,
      '-X',
      'POST',
      '-d',
      '',
      'https://platform-sg.plaud.ai/developer/api/oauth/partner/access-token',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/HTTP\/1\.1 200 /);
    const token = JSON.parse(r.out.slice(r.out.indexOf('{'))).access_token as string;
    expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).region).toBe('sg');
    const proxy = await http('GET', `${on.admin}/proxy`);
    expect(proxy.body.intercepted_hosts).toEqual(
      expect.arrayContaining(['platform-eu.plaud.ai', 'platform-sg.plaud.ai']),
    );
  });
});
