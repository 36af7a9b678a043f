import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';

// Issue 30 item 1: with --https, sockets that send nothing or half a ClientHello are idle for
// --max-connections' eviction, and a short first-byte deadline closes them.

let sim: TestServer;
let cleanup: () => Promise<void>;
let port: number;
const MAX = 8;
beforeAll(async () => {
  const tmp = await tempDataDir();
  cleanup = tmp.cleanup;
  sim = await startTestServer({
    https: true,
    caDir: `${tmp.dir}/ca`,
    maxConnections: MAX,
    headersTimeoutMs: 1500,
  });
  port = Number(new URL(sim.url).port);
}, 60_000);
afterAll(async () => {
  await sim.stop();
  await cleanup();
});

/** A connection that sends `first` (maybe nothing) and then nothing more; resolves once connected. */
function quiet(first?: Buffer): Promise<net.Socket & { gone: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => {});
    const gone = new Promise<void>((r) => s.once('close', () => r()));
    s.once('connect', () => {
      if (first) s.write(first);
      resolve(Object.assign(s, { gone }));
    });
    s.once('error', reject);
  });
}

/** The first bytes of a TLS ClientHello: a handshake record header that promises more. */
const HALF_HELLO = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]);

function httpsHealth(): Promise<number> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      `${sim.https!.url}/__admin/health`,
      { ca: readFileSync(sim.https!.caCertPath), agent: false, timeout: 5000 },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

const within = (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('an idle-connection flood on an --https port', () => {
  it('evicts silent and half-handshake sockets, so health checks answer on both sides of the port', async () => {
    // More than the cap plus the 256 sockets past it Node still accepts: on the old guard,
    // sockets before their first byte or handshake were not counted, so none was evicted and
    // Node dropped every new connection.
    const flood: Awaited<ReturnType<typeof quiet>>[] = [];
    for (let i = 0; i < 320; i++) flood.push(await quiet(i % 2 === 0 ? undefined : HALF_HELLO));
    const answered: number[] = [];
    for (let i = 0; i < 5; i++) {
      answered.push(await httpsHealth());
      answered.push((await http('GET', `${sim.admin}/health`)).status);
    }
    expect(answered).toEqual(Array(10).fill(200));
    // The flood churned through the cap instead of holding the port.
    const stillOpen = flood.filter((s) => !s.destroyed && s.readyState === 'open');
    expect(stillOpen.length).toBeLessThanOrEqual(MAX);
    for (const s of flood) s.destroy();
  });

  it('closes a silent socket and a stalled handshake after the first-byte deadline', async () => {
    const silent = await quiet();
    const half = await quiet(HALF_HELLO);
    expect(await within(silent.gone, 5000)).toBe(true);
    expect(await within(half.gone, 5000)).toBe(true);
  });

  it('never evicts a TLS connection with a request in progress: past the cap a new one gets the 503', async () => {
    const tmp = await tempDataDir();
    const small = await startTestServer({ https: true, caDir: `${tmp.dir}/ca`, maxConnections: 2 });
    try {
      const at = {
        port: Number(new URL(small.url).port),
        host: '127.0.0.1',
        ca: readFileSync(small.https!.caCertPath),
      };
      const secure = async () => {
        const t = tls.connect(at);
        t.on('error', () => {});
        await new Promise((r) => t.once('secureConnect', r));
        let got = '';
        t.on('data', (d: Buffer) => {
          got += d.toString('latin1');
        });
        return Object.assign(t, {
          got: () => got,
          gone: new Promise<void>((r) => t.once('close', () => r())),
        });
      };
      const busy = [];
      for (let i = 0; i < 2; i++) {
        const t = await secure();
        // Busy: a request whose body is still on its way.
        t.write(
          'POST /developer/api/oauth/partner/access-token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant',
        );
        busy.push(t);
      }
      await new Promise((r) => setTimeout(r, 200));
      const third = await secure();
      third.write('GET /__admin/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      expect(await within(third.gone, 5000)).toBe(true);
      expect(third.got()).toMatch(/^HTTP\/1\.1 503 /);
      expect(busy.map((t) => t.destroyed)).toEqual([false, false]);
      for (const t of busy) t.destroy();
    } finally {
      await small.stop();
      await tmp.cleanup();
    }
  });
});
