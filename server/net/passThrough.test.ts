import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../config.js';
import { curl } from '../testing/curl.js';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';
import { passThrough } from './passThrough.js';

// --proxy-passthrough: hosts the simulator does not serve go to the real host unchanged. The
// "real host" is a server on another loopback address (127.0.0.2): nothing leaves the machine.
const OTHER = '127.0.0.2';

let upstream: Server;
let upstreamPort: number;
let echo: net.Server;
let echoPort: number;
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
  await new Promise<void>((r) => upstream.listen(0, OTHER, r));
  upstreamPort = (upstream.address() as AddressInfo).port;
  // Bytes in a tunnel are not HTTP to the simulator: a raw echo proves they pass untouched.
  echo = net.createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo.listen(0, OTHER, r));
  echoPort = (echo.address() as AddressInfo).port;
  tmp = await tempDataDir();
  open = await startTestServer({ https: true, proxyPassthrough: true, caDir: `${tmp.dir}/ca` });
  closed = await startTestServer({ https: true, caDir: `${tmp.dir}/ca` });
}, 60_000);
afterAll(async () => {
  await open.stop();
  await closed.stop();
  upstream.close();
  echo.close();
  await tmp.cleanup();
});

/** CONNECT through `proxy` to the echo server, send `bytes`, read what comes back. */
function tunnelEcho(proxy: string, bytes: string): Promise<string> {
  const { port } = new URL(proxy);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(port), '127.0.0.1', () =>
      s.write(`CONNECT ${OTHER}:${echoPort} HTTP/1.1\r\nHost: ${OTHER}:${echoPort}\r\n\r\n`),
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
    const got = await tunnelEcho(open.https!.proxy, 'not http \x00\x01 at all');
    expect(got).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\n/);
    expect(got).toContain('not http \x00\x01 at all');
  });

  it('forwards a plain proxy request and passes the answer back, proxy headers left out', async () => {
    const r = await curl(
      '--proxy',
      open.https!.proxy,
      '-d',
      'hello',
      `http://${OTHER}:${upstreamPort}/a/b?c=1`,
    );
    expect(r.out, r.err).toMatch(/^HTTP\/1\.1 200 /);
    expect(r.out).toMatch(/x-upstream: yes/i);
    const body = JSON.parse(r.out.slice(r.out.indexOf('\r\n\r\n') + 4));
    expect(body).toEqual({
      method: 'POST',
      url: '/a/b?c=1',
      host: `${OTHER}:${upstreamPort}`,
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
    const gone = net.createServer();
    await new Promise<void>((r) => gone.listen(0, OTHER, r));
    const port = (gone.address() as AddressInfo).port;
    await new Promise<void>((r) => gone.close(() => r()));
    const r = await curl('--proxy', open.https!.proxy, `http://${OTHER}:${port}/`);
    expect(r.out).toMatch(/^HTTP\/1\.1 502 /);
    expect(r.out).toContain('PROXY_UPSTREAM_FAILED');
    expect(r.out).toContain(`--proxy-passthrough: ${OTHER}:${port} could not be reached`);
    const t = await curl('--proxy', open.https!.proxy, `https://${OTHER}:${port}/`);
    expect(t.err).toContain('502');
  });

  it('is off by default: the same requests are refused, naming the option', async () => {
    const got = await tunnelEcho(closed.https!.proxy, 'x');
    expect(got).toMatch(/^HTTP\/1\.1 403 /);
    expect(got).toContain('--proxy-passthrough');
    const r = await curl('--proxy', closed.https!.proxy, `http://${OTHER}:${upstreamPort}/`);
    expect(r.out).toMatch(/^HTTP\/1\.1 403 /);
    expect(r.out).toContain('PROXY_HOST_REFUSED');
    expect(r.out).toContain('--proxy-passthrough');
    expect(r.out).not.toMatch(/x-upstream/i);
  });

  it("never lets a client on another machine through to this machine's own addresses", async () => {
    const pass = passThrough(() => {});
    const fromLan = new net.Socket();
    // As a phone on the LAN would be seen (tests stay on loopback: the address is stood in).
    Object.defineProperty(fromLan, 'remoteAddress', { value: '192.0.2.5' });
    const failed = await new Promise<[number, string]>((resolve) =>
      pass.tunnel(fromLan, Buffer.alloc(0), { host: OTHER, port: echoPort }, (status, why) =>
        resolve([status, why]),
      ),
    );
    fromLan.destroy();
    expect(failed[0]).toBe(403);
    expect(failed[1]).toContain("this machine's own address");
    // A local client (the emulator's traffic arrives from loopback) is let through.
    const local = new net.Socket();
    Object.defineProperty(local, 'remoteAddress', { value: '127.0.0.1' });
    const established = await new Promise<string>((resolve, reject) => {
      local.write = ((chunk: string) => {
        resolve(String(chunk));
        return true;
      }) as typeof local.write;
      pass.tunnel(local, Buffer.alloc(0), { host: OTHER, port: echoPort }, (_s, why) =>
        reject(new Error(why)),
      );
    });
    local.destroy();
    expect(established).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('logs each host once', () => {
    const logged: string[] = [];
    const pass = passThrough((host) => logged.push(host));
    for (const host of [OTHER, OTHER, OTHER, '127.0.0.3']) {
      const client = new net.Socket();
      pass.tunnel(client, Buffer.alloc(0), { host, port: echoPort }, () => {});
      client.destroy(); // the client gone: its upstream connection goes too
    }
    expect(logged).toEqual([OTHER, '127.0.0.3']);
  });

  it('needs --https', () => {
    expect(() => parseConfig({ 'proxy-passthrough': true })).toThrow(ConfigError);
    expect(parseConfig({ https: true, 'proxy-passthrough': true }).proxyPassthrough).toBe(true);
    expect(parseConfig({ https: true }).proxyPassthrough).toBe(false);
  });
});
