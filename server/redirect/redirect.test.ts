import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { execFileTracked } from '../testing/spawnTracked.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

const run = execFileTracked;
const SOURCES = [
  'redirect/register',
  'redirect/hosts',
  'redirect/fetchPatch',
  'redirect/httpPatch',
  'http/apiPrefixes',
  'core/regions',
];

/** The child processes load the built loader: rebuild only when a source is newer than its output. */
async function ensureBuilt(): Promise<void> {
  for (const s of SOURCES) {
    const built = await stat(fromRoot('dist', 'server', `${s}.js`)).catch(() => undefined);
    const source = await stat(fromRoot('server', `${s}.ts`));
    if (!built || built.mtimeMs < source.mtimeMs) {
      await run('npm', ['run', 'build', '--silent'], { cwd: fromRoot() });
      return;
    }
  }
}

let sim: TestServer;
beforeAll(async () => {
  await ensureBuilt();
  sim = await startTestServer();
}, 120_000);
afterAll(() => sim.stop());

/** Run a partner client script, unchanged, under `node --import partner-sim/redirect`. */
async function client(script: string, region: 'us' | 'jp'): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'partner-sim/redirect', fromRoot('server', 'redirect', 'clients', script), region],
    { cwd: fromRoot(), env: { ...process.env, PARTNER_SIM_URL: sim.url }, timeout: 30_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** The region claim of a user token: which regional prefix minted it. */
const regionOf = (jwt: unknown): string =>
  JSON.parse(Buffer.from(String(jwt).split('.')[1]!, 'base64url').toString()).region;

describe('node --import partner-sim/redirect', () => {
  it.each([
    'us',
    'jp',
  ] as const)('sends a fetch client hard-coded to the %s host to that region', async (region) => {
    const r = await client('fetchClient.mjs', region);
    // Credentials only work in their own region, so 200s prove the region prefix.
    expect(r).toMatchObject({ partner: 200, user: 200, presign: 200, put: 200 });
    expect(regionOf(r.userToken)).toBe(region);
    // The presigned URL already points at the simulator and is left alone.
    expect(r.etag).toBe('"e2fc714c4727ee9395f324cd2e7f331f"'); // MD5 of "abcd"
  });

  it.each([
    'us',
    'jp',
  ] as const)('sends an https.request/get client for %s there, https → http', async (region) => {
    const r = await client('httpsClient.mjs', region);
    // The binding query of a never-signed serial is the spec's bare 404: the GET arrived.
    expect(r).toMatchObject({ partner: 200, user: 200, binding: 404 });
    expect(regionOf(r.userToken)).toBe(region);
  });
});
