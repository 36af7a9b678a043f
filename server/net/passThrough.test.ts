import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../config.js';
import { curl } from '../testing/curl.js';
import { withEgressSpy } from '../testing/egressSpy.js';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';
import { passThrough } from './passThrough.js';

// --proxy-passthrough: hosts the simulator does not serve go to the real host unchanged. The
// "real host" is a server on another loopback address (127.0.0.2): nothing leaves the machine.
// Loopback is let through on the simulator's own port only, so the real host listens on the
// port number the simulator then takes on 127.0.0.1.
const OTHER = '127.0.0.2';

let upstream: Server;
/** The real host's port, and the simulator's. */
let port: number;
/** Plain HTTP goes to `upstream`; any other bytes are echoed, as a raw tunnel must carry them. */
let real: net.Server;
/** A service on loopback on another port: the pass-through must never reach it. */
let bystander: net.Server;
let bystanderPort: number;
let bystanderHits = 0;
let tmp: { dir: string; cleanup: () => Promise<void> };
let open: TestServer;
let closed: TestServer;
beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      res.setHeader('X-Upstream', 'yes');
      res.end(
        JSON.stringify({
          method: req.method,
          url: req.url,
          host: req.headers.host,
          body,
          proxy: req.headers['proxy-connection'] ?? null,
        }),
      );
    });
  });
  real = net.createServer((s) => {
    s.once('data', (first: Buffer) => {
      s.pause();
      s.unshift(first);
      if (/^[A-Z]+ \//.test(first.toString('latin1'))) upstream.emit('connection', s);
      else s.pipe(s);
      s.resume();
    });
  });
  await new Promise<void>((r) => real.listen(0, OTHER, r));
  port = (real.address() as AddressInfo).port;
  bystander = net.createServer((s) => {
    bystanderHits++;
    s.end('bystander');
  });
  await new Promise<void>((r) => bystander.listen(0, OTHER, r));
  bystanderPort = (bystander.address() as AddressInfo).port;
  tmp = await tempDataDir();
  open = await startTestServer({
    https: true,
    proxyPassthrough: true,
    caDir: `${tmp.dir}/ca`,
    host: '127.0.0.1',
    port,
  });
  closed = await startTestServer({ https: true, caDir: `${tmp.dir}/ca` });
}, 60_000);
afterAll(async () => {
  await open.stop();
  await closed.stop();
  real.close();
  bystander.close();
  await tmp.cleanup();
});

/** CONNECT through `proxy` to `target`, send `bytes` once established, read what comes back. */
function tunnel(proxy: string, target: string, bytes: string): Promise<string> {
  const { port: proxyPort } = new URL(proxy);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(proxyPort), '127.0.0.1', () =>
      s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`),
    );
    let got = '';
    s.on('data', (c) => {
      got += c.toString('latin1');
      if (got.includes('\r\n\r\n') && !got.includes(bytes) && /^HTTP\/1\.1 200 /.test(got)) s.write(bytes);
      if (got.includes(bytes) || /^HTTP\/1\.1 [45]/.test(got)) s.end();
    });
    s.on('close', () => resolve(got));
    s.on('error', reject);
    s.setTimeout(10_000, () => reject(new Error(`no answer; got ${JSON.stringify(got)}`)));
  });
}

describe('--proxy-passthrough', () => {
  it('pipes a CONNECT tunnel to a host it does not serve, byte for byte', async () => {
    const got = await tunnel(open.https!.proxy, `${OTHER}:${port}`, 'not http \x00\x01 at all');
    expect(got).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\n/);
    expect(got).toContain('not http \x00\x01 at all');
  });

  it('forwards a plain proxy request and passes the answer back, proxy headers left out', async () => {
    const r = await curl('--proxy', open.https!.proxy, '-d', 'hello', `http://${OTHER}:${port}/a/b?c=1`);
    expect(r.out, r.err).toMatch(/^HTTP\/1\.1 200 /);
    expect(r.out).toMatch(/x-upstream: yes/i);
    const body = JSON.parse(r.out.slice(r.out.indexOf('\r\n\r\n') + 4));
    expect(body).toEqual({
      method: 'POST',
      url: '/a/b?c=1',
      host: `${OTHER}:${port}`,
      body: 'hello',
      proxy: null,
    });
  });

  it('still serves the live hosts itself', async () => {
    const r = await curl('--proxy', open.https!.proxy, 'http://platform-us.plaud.ai/developer/api/nothing');
    expect(r.out).toMatch(/^HTTP\/1\.1 404 /);
    expect(r.out).not.toMatch(/x-upstream/i);
  });

  it('answers 502 naming the host when the real host cannot be reached', async () => {
    // Nothing listens on 127.0.0.3 (the simulator's port, so the guard lets it be tried).
    const r = await curl('--proxy', open.https!.proxy, `http://127.0.0.3:${port}/`);
    expect(r.out).toMatch(/^HTTP\/1\.1 502 /);
    expect(r.out).toContain('PROXY_UPSTREAM_FAILED');
    expect(r.out).toContain(`--proxy-passthrough: 127.0.0.3:${port} could not be reached`);
    const t = await curl('--proxy', open.https!.proxy, `https://127.0.0.3:${port}/`);
    expect(t.err).toContain('502');
  });

  it('is off by default: the same requests are refused, naming the option', async () => {
    const got = await tunnel(closed.https!.proxy, `${OTHER}:${port}`, 'x');
    expect(got).toMatch(/^HTTP\/1\.1 403 /);
    expect(got).toContain('--proxy-passthrough');
    const r = await curl('--proxy', closed.https!.proxy, `http://${OTHER}:${port}/`);
    expect(r.out).toMatch(/^HTTP\/1\.1 403 /);
    expect(r.out).toContain('PROXY_HOST_REFUSED');
    expect(r.out).toContain('--proxy-passthrough');
    expect(r.out).not.toMatch(/x-upstream/i);
  });

  it('never lets anyone through to a link-local (cloud metadata) address, by address or by name', async () => {
    const proxy = open.https!.proxy;
    const seen = await withEgressSpy(
      { 'metadata.test': '169.254.169.254', 'v6.test': 'fe80::1' },
      async () => {
        for (const target of ['169.254.169.254:80', 'metadata.test:80', '[fe80::1]:443', 'v6.test:443']) {
          const got = await tunnel(proxy, target, 'GET /latest/meta-data/ HTTP/1.1\r\n\r\n');
          expect(got, target).toMatch(/^HTTP\/1\.1 403 Forbidden/);
          expect(got, target).toContain('"detail":"PROXY_ADDRESS_REFUSED"');
          expect(got, target).toContain('link-local (cloud metadata)');
        }
        const r = await curl('--proxy', proxy, 'http://metadata.test/latest/meta-data/');
        expect(r.out).toMatch(/^HTTP\/1\.1 403 /);
        expect(r.out).toContain(
          '--proxy-passthrough: metadata.test refused: metadata.test resolves to 169.254.169.254, link-local (cloud metadata)',
        );
        const lit = await curl('--proxy', proxy, 'http://[::ffff:169.254.169.254]/');
        expect(lit.out).toMatch(/^HTTP\/1\.1 403 /);
        expect(lit.out).toContain('PROXY_ADDRESS_REFUSED');
      },
    );
    // Refused on the address the name resolved to, before any connection.
    expect(seen.blocked).toEqual([]);
    expect(seen.lookups).toContain('metadata.test');
  });

  it("never lets anyone through to this machine's loopback on a port not the simulator's own", async () => {
    const proxy = open.https!.proxy;
    for (const target of [
      `${OTHER}:${bystanderPort}`,
      `localhost:${bystanderPort}`,
      `0.0.0.0:${bystanderPort}`,
    ]) {
      const got = await tunnel(proxy, target, 'x');
      expect(got, target).toMatch(/^HTTP\/1\.1 403 /);
      expect(got, target).toContain('PROXY_ADDRESS_REFUSED');
      expect(got, target).toContain(`loopback (this machine) on port ${bystanderPort}`);
      expect(got, target).toContain(`only the simulator's own port ${port}`);
    }
    const r = await curl('--proxy', proxy, `http://${OTHER}:${bystanderPort}/`);
    expect(r.out).toMatch(/^HTTP\/1\.1 403 /);
    expect(r.out).toContain('PROXY_ADDRESS_REFUSED');
    expect(bystanderHits).toBe(0);
  });

  it('logs each host let through once (info) and each refused host once (warn)', async () => {
    const passed: string[] = [];
    const refused: string[] = [];
    const pass = passThrough(
      { passed: (host) => passed.push(host), refused: (host, why) => refused.push(`${host}: ${why}`) },
      () => port,
    );
    const open1 = () =>
      new Promise<string>((resolve, reject) => {
        const client = new net.Socket();
        client.write = ((chunk: string) => {
          resolve(String(chunk));
          client.destroy(); // the client gone: its upstream connection goes too
          return true;
        }) as typeof client.write;
        pass.tunnel(client, Buffer.alloc(0), { host: OTHER, port }, (_s, why) => reject(new Error(why)));
      });
    expect(await open1()).toMatch(/^HTTP\/1\.1 200 /);
    expect(await open1()).toMatch(/^HTTP\/1\.1 200 /);
    const answers: Array<[number, string]> = [];
    for (const host of ['169.254.169.254', '169.254.169.254', '127.0.0.3'])
      pass.tunnel(new net.Socket(), Buffer.alloc(0), { host, port: 80 }, (status, why) =>
        answers.push([status, why]),
      );
    expect(passed).toEqual([OTHER]);
    expect(refused).toEqual([
      '169.254.169.254: 169.254.169.254 is link-local (cloud metadata), never let through',
      `127.0.0.3: 127.0.0.3 is loopback (this machine) on port 80, never let through (only the simulator's own port ${port} is)`,
    ]);
    expect(answers.map(([s]) => s)).toEqual([403, 403, 403]);
  });

  it('needs --https', () => {
    expect(() => parseConfig({ 'proxy-passthrough': true })).toThrow(ConfigError);
    expect(parseConfig({ https: true, 'proxy-passthrough': true }).proxyPassthrough).toBe(true);
    expect(parseConfig({ https: true }).proxyPassthrough).toBe(false);
  });
});
