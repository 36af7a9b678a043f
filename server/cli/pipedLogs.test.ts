import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeChild, spawnServe } from '../testing/serveChild.js';
import { sourceEntry } from '../testing/sourceBuild.js';

// `partner-sim serve > sim.log` as CI runs it: stdout a pipe, no flags about logs, and CI's
// environment (FORCE_COLOR unset, CI set: what makes some tools colour a pipe anyway).
let serve: ServeChild | undefined;
let out = '';
beforeAll(async () => {
  const { FORCE_COLOR: _f, NO_COLOR: _n, VITEST: _v, NODE_ENV: _e, ...env } = process.env;
  serve = await spawnServe(await sourceEntry('cli'), ['--port', '0', '--host', '127.0.0.1', '--in-memory'], {
    env: { ...env, CI: 'true' },
  });
  serve.proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
}, 120_000);
afterAll(async () => {
  serve?.proc.kill();
  await serve?.exited;
});

/** One request with the Host header it is given (fetch cannot set Host); resolves with the status. */
const get = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  new Promise<number>((resolve, reject) => {
    const u = new URL(url);
    request({ host: u.hostname, port: u.port, path: u.pathname, method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    })
      .on('error', reject)
      .end();
  });

describe('serve in a pipe', () => {
  it('writes one JSON line per request on every surface, no colour codes, level by status', async () => {
    const base = serve!.url;
    expect(await get(`${base}/__admin/clock`, { 'x-request-id': 'ci-1' })).toBe(200);
    expect(await get(`${base}/docs`)).toBe(200);
    expect(await get(`${base}/__device/phones/ph_${'0'.repeat(32)}`)).toBe(404);
    expect(await get(`${base}/__admin/clock`, { host: 'evil.example' })).toBe(403);
    expect(await get(`${base}/developer/api/oauth/partner/access-token`, {}, 'POST')).toBeGreaterThanOrEqual(
      400,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(out).not.toContain('\x1b');
    const lines = out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.map((l) => [l.method, l.path, l.status, l.level])).toEqual([
      ['GET', '/__admin/clock', 200, 30],
      ['GET', '/docs', 200, 30],
      ['GET', `/__device/phones/ph_${'0'.repeat(32)}`, 404, 40],
      ['GET', '/__admin/clock', 403, 40],
      ['POST', '/developer/api/oauth/partner/access-token', expect.any(Number), 40],
    ]);
    expect(requests[0]).toMatchObject({ request_id: 'ci-1', latency_ms: expect.any(Number) });
    expect(requests[3]).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
    expect(requests[2]!.code).toEqual(expect.any(String));
  });
});
