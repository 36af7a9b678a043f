import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';
import { runHealth } from './health.js';

// `partner-sim health` against the listener modes the image can run in: it must pass for a
// healthy server whatever the mode (the old `fetch('http://…/__admin/health')` check got 400
// from --https-only and the container turned unhealthy).
let https: TestServer;
let httpsOnly: TestServer;
let guarded: TestServer;
let caDir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir: caDir, cleanup } = await tempDataDir());
  https = await startTestServer({ https: true, caDir });
  httpsOnly = await startTestServer({ https: true, httpsOnly: true, caDir });
  guarded = await startTestServer({ adminToken: 'health-token' });
}, 60_000);
afterAll(async () => {
  await Promise.all([https?.stop(), httpsOnly?.stop(), guarded?.stop()]);
  await cleanup?.();
});

const port = (s: TestServer) => new URL(s.url).port;

async function health(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => {
    out += String(c);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => {
    err += String(c);
    return true;
  });
  try {
    return { code: await runHealth(argv), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('partner-sim health', () => {
  it('--https: passes over plain HTTP, the port answering both', async () => {
    const r = await health('--port', port(https), '--https', '--ca-dir', caDir);
    expect(r).toEqual({
      code: 0,
      out: `partner-sim health: ${https.url}/__admin/health answered 200\n`,
      err: '',
    });
  });

  it('--https-only: asks over TLS, trusting the local CA', async () => {
    const r = await health('--port', port(httpsOnly), '--https', '--https-only', '--ca-dir', caDir);
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      `partner-sim health: https://127.0.0.1:${port(httpsOnly)}/__admin/health answered 200\n`,
    );
    // Not told the mode: the listener's "HTTPS required" answer makes it ask again over TLS.
    const untold = await health('--port', port(httpsOnly), '--ca-dir', caDir);
    expect(untold.code).toBe(0);
    expect(untold.out).toMatch(
      /^partner-sim health: https:\/\/127\.0\.0\.1:\d+\/__admin\/health answered 200\n$/,
    );
  });

  it('--https-only without the CA to trust fails with one line naming it', async () => {
    const { dir, cleanup: done } = await tempDataDir();
    const r = await health('--port', port(httpsOnly), '--https', '--https-only', '--ca-dir', dir);
    await done();
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^partner-sim health: https:.*: cannot read the local CA .*partner-sim-ca\.pem \(ENOENT\).*--ca-dir\n$/,
    );
  });

  it('--admin-token: passes with the token given, and without it (health needs none)', async () => {
    expect((await health('--port', port(guarded), '--admin-token', 'health-token')).code).toBe(0);
    expect((await health('--port', port(guarded))).code).toBe(0);
  });

  it('a wildcard bind is asked on loopback; nothing listening fails in one line', async () => {
    expect((await health('--port', port(guarded), '--host', '0.0.0.0')).code).toBe(0);
    await guarded.stop();
    const r = await health('--port', port(guarded), '--timeout', '1000');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^partner-sim health: http:\/\/127\.0\.0\.1:\d+\/__admin\/health: .*ECONNREFUSED.*\n$/,
    );
  });

  it('--help says what it reads; bad values are usage errors', async () => {
    const help = await health('--help');
    expect(help.code).toBe(0);
    expect(help.out).toMatch(
      /^Usage: partner-sim health \[serve options\][\s\S]*--https-only[\s\S]*HEALTHCHECK/,
    );
    expect((await health('--timeout', 'soon')).code).toBe(2);
    expect((await health('--port', '0')).code).toBe(2);
  });
});
