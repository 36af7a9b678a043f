import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl } from '../testing/curl.js';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';

// `serve --https`: what the TLS listener and the proxy refuse, and that refusing never
// reaches out. Real clients (curl) on loopback; the server runs in this process, so its
// outbound attempts are visible here.
const dns = createRequire(import.meta.url)('node:dns') as typeof import('node:dns');

let sim: TestServer;
let ca: string;
let cleanup: () => Promise<void>;
let port: number;
beforeAll(async () => {
  const tmp = await tempDataDir();
  cleanup = tmp.cleanup;
  sim = await startTestServer({ https: true, caDir: `${tmp.dir}/ca`, tlsHosts: ['sim.lan.test'] });
  ca = sim.https!.caCertPath;
  port = Number(new URL(sim.url).port);
}, 60_000);
afterAll(async () => {
  await sim.stop();
  await cleanup();
});

/** Send raw bytes to the listener and read until it closes the connection. */
function raw(bytes: string | Buffer): Promise<string> {
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

/**
 * Every outbound TCP connection this process attempts (all of net, tls and http go through
 * Socket#connect) and every name it looks up, while `fn` runs.
 */
async function outbound(fn: () => Promise<void>): Promise<{ connects: string[]; lookups: string[] }> {
  const connects: string[] = [];
  const lookups: string[] = [];
  const connect = net.Socket.prototype.connect;
  const lookup = dns.lookup;
  const lookupP = dns.promises.lookup;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    // net.connect hands over its normalized [options, callback] pair.
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const o = first as { host?: string; port?: number } | number;
    connects.push(typeof o === 'object' && o !== null ? `${o.host}:${o.port}` : String(o));
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;
  dns.lookup = ((host: string, ...rest: unknown[]) => {
    lookups.push(host);
    return (lookup as (...a: unknown[]) => unknown)(host, ...rest);
  }) as typeof dns.lookup;
  dns.promises.lookup = ((host: string, ...rest: unknown[]) => {
    lookups.push(host);
    return (lookupP as (...a: unknown[]) => unknown)(host, ...rest);
  }) as typeof dns.promises.lookup;
  try {
    await fn();
  } finally {
    net.Socket.prototype.connect = connect;
    dns.lookup = lookup;
    dns.promises.lookup = lookupP;
  }
  return { connects, lookups };
}

describe('the proxy refuses what it does not serve', () => {
  it('CONNECT to other hosts, names or addresses: 403 naming the host and the option, nothing resolved or connected', async () => {
    const seen = await outbound(async () => {
      for (const url of [
        'https://example.com/',
        'https://platform-cn.plaud.ai/developer/api',
        'https://203.0.113.7/',
      ]) {
        const r = await curl('--cacert', ca, '--proxy', sim.https!.proxy, url);
        expect(r.code, r.err).toBe(56); // curl: the proxy refused the tunnel
        expect(r.err).toContain('403');
      }
      // The refusal's own words, read off the wire.
      const answer = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 403 /);
      expect(answer).toContain('PROXY_HOST_REFUSED');
      expect(answer).toContain('does not serve example.com:443');
      // The hints name the host without its port: --tls-hosts takes names, and many clients
      // ignore a port in NO_PROXY.
      expect(answer).toContain('--tls-hosts example.com;');
      expect(answer).toContain('NO_PROXY=example.com)');
      expect(answer).not.toMatch(/--tls-hosts example\.com:|NO_PROXY=example\.com:/);
      // Loopback is the simulator only on its own port: another local service is not ours.
      expect(await raw('CONNECT 127.0.0.1:5432 HTTP/1.1\r\nHost: 127.0.0.1:5432\r\n\r\n')).toMatch(
        /^HTTP\/1\.1 403 /,
      );
      // A plain-http proxy request for another host likewise.
      const plain = await curl('--proxy', sim.https!.proxy, 'http://example.com/path');
      expect(plain.out).toMatch(/^HTTP\/1\.1 403 /);
      expect(plain.out).toContain('"detail":"PROXY_HOST_REFUSED"');
      const ported = await curl('--proxy', sim.https!.proxy, 'http://example.com:8080/path');
      expect(ported.out).toContain('does not serve example.com:8080');
      expect(ported.out).toContain('--tls-hosts example.com;');
      expect(ported.out).toContain('NO_PROXY=example.com)');
    });
    expect(seen.lookups).toEqual([]);
    // Only this test's own raw connections to the listener: the server opened none.
    expect(seen.connects.every((c) => c === `127.0.0.1:${port}`)).toBe(true);
  }, 60_000);

  it('serves the live hosts through the proxy without a single outbound connection', async () => {
    const seen = await outbound(async () => {
      const r = await curl(
        '--cacert',
        ca,
        '--proxy',
        sim.https!.proxy,
        'https://platform-us.plaud.ai/developer/api/nothing',
      );
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain('404');
      // Plain-http proxy requests, and plain HTTP inside a tunnel, go to the JP host's region.
      const token = ['-X', 'POST', '-u', 'demo-client-jp:demo-secret-jp-0000'];
      const url = 'http://platform-jp.plaud.ai/developer/api/oauth/partner/access-token';
      for (const extra of [[], ['--proxytunnel']]) {
        const t = await curl('--proxy', sim.https!.proxy, ...extra, ...token, url);
        expect(t.out, `${extra}: ${t.err}`).toMatch(/HTTP\/1\.1 200 OK/);
        const jwt = /"access_token":"([^"]+)"/.exec(t.out)![1]!;
        expect(JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).region).toBe('jp');
      }
    });
    expect(seen).toEqual({ connects: [], lookups: [] });
  }, 30_000);
});

describe('bad input is a clean error, never a crash or a hang', () => {
  it('a malformed CONNECT: 400, connection closed', async () => {
    for (const target of ['nohost', 'example.com:99999', ':443', 'a b:1']) {
      const answer = await raw(`CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(answer, target).toMatch(/^HTTP\/1\.1 400 /);
    }
  });

  it('a handshake for a name the certificate does not cover fails; the listener goes on', async () => {
    const err = await new Promise<Error>((resolve) => {
      const s = tls.connect({ port, host: '127.0.0.1', servername: 'unknown.example', ca: readFileSync(ca) });
      s.on('secureConnect', () => resolve(new Error('handshake succeeded')));
      s.on('error', resolve);
    });
    expect(err.message).not.toBe('handshake succeeded');
    // Half a handshake record, then gone: that connection waits out the handshake timeout
    // (10 s) alone; the listener serves the next client at once.
    const half = net.connect(port, '127.0.0.1', () => half.end(Buffer.from([0x16, 0x03, 0x01])));
    half.on('error', () => {});
    const ok = await curl('--cacert', ca, `${sim.https!.url}/`);
    expect(ok.out).toMatch(/^HTTP\/1\.1 200 /);
  }, 30_000);

  it('covers the loopback names, the emulator alias and --tls-hosts names, verified by curl', async () => {
    // (10.0.2.2 is an address curl cannot be pointed at here: its SAN is read below.)
    for (const name of ['localhost', 'sim.lan.test', 'platform-jp.plaud.ai']) {
      const r = await curl(
        '--cacert',
        ca,
        '--resolve',
        `${name}:${port}:127.0.0.1`,
        `https://${name}:${port}/`,
      );
      expect(r.out, `${name}: ${r.err}`).toMatch(/^HTTP\/1\.1 200 /);
    }
    const cert = await new Promise<tls.PeerCertificate>((resolve, reject) => {
      const s = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => {
        resolve(s.getPeerCertificate());
        s.end();
      });
      s.on('error', reject);
    });
    expect(cert.subjectaltname).toContain('IP Address:10.0.2.2');
    expect(cert.subjectaltname).toContain('DNS:platform-test.plaud.ai');
  }, 30_000);
});

describe('the control API keeps its protections', () => {
  it('answers loopback over TLS, refuses a live host name reached through the proxy', async () => {
    const direct = await curl('--cacert', ca, `${sim.https!.url}/__admin/apps`);
    expect(direct.out).toMatch(/^HTTP\/1\.1 200 /);
    const proxied = await curl(
      '--cacert',
      ca,
      '--proxy',
      sim.https!.proxy,
      'https://platform-us.plaud.ai/__admin/apps',
    );
    expect(proxied.out).toMatch(/HTTP\/1\.1 403 /);
    expect(proxied.out).not.toContain('demo-secret');
  }, 30_000);
});

describe('--https-only', () => {
  it('answers direct plain HTTP with 400 naming the https address; TLS and the proxy work', async () => {
    const only = await startTestServer({ https: true, httpsOnly: true, caDir: `${ca}/..` });
    try {
      const plain = await curl(`${only.url}/`);
      expect(plain.out).toMatch(/^HTTP\/1\.1 400 /);
      expect(plain.out).toContain('HTTPS_REQUIRED');
      const secure = await curl('--cacert', ca, `${only.https!.url}/`);
      expect(secure.out).toMatch(/^HTTP\/1\.1 200 /);
      const proxied = await curl(
        '--cacert',
        ca,
        '--proxy',
        only.https!.proxy,
        'https://platform-us.plaud.ai/developer/api/x',
      );
      expect(proxied.out).toContain('404');
    } finally {
      await only.stop();
    }
  }, 30_000);
});
