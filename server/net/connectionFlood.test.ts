import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import net from 'node:net';
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
});
