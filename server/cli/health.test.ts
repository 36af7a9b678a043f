import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captured } from '../testing/cliRun.js';
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

const health = (...argv: string[]) => captured(() => runHealth(argv));

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

  it('--target <URL> asks that simulator, and --base-url is the same; --json says which', async () => {
    const r = await health('--target', https.url);
    expect(r).toEqual({
      code: 0,
      out: `partner-sim health: ${https.url}/__admin/health answered 200\n`,
      err: '',
    });
    const j = await health('--base-url', `${https.url}/`, '--json');
    expect(JSON.parse(j.out)).toEqual({ url: `${https.url}/__admin/health`, ok: true, status: 200 });
  });

  it('--target sim asks a simulator started in this process; live and nonsense are usage errors', async () => {
    const sim = await health('--target', 'sim', '--json');
    expect(sim.code).toBe(0);
    expect(JSON.parse(sim.out)).toMatchObject({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/__admin\/health$/),
      ok: true,
    });
    const live = await health('--target', 'live');
    expect(live).toMatchObject({ code: 2, out: '' });
    expect(live.err).toBe(
      "partner-sim health: --target live: the live service has no health endpoint; give a simulator's URL or sim\n",
    );
    const nope = await health('--target', 'nope');
    expect(nope.code).toBe(2);
    expect(nope.err).toMatch(/--target must be sim, live, .* or a URL \(got 'nope'\)/);
  });

  it('--help says what it reads; bad values are usage errors', async () => {
    const help = await health('--help');
    expect(help.code).toBe(0);
    expect(help.out).toMatch(
      /^Usage: partner-sim health \[serve options \| --target <URL\|sim>\][\s\S]*--https-only[\s\S]*HEALTHCHECK/,
    );
    expect((await health('--timeout', 'soon')).code).toBe(2);
    expect((await health('--port', '0')).code).toBe(2);
  });
});
