import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { http } from '../testing/http.js';
import { execFileTracked } from '../testing/spawnTracked.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// The redirect loader and the regions live lists as "Coming soon" (EU, SG): a request to their
// hosts fails as a name that does not resolve (as on live), with no lookup, unless
// PARTNER_SIM_REGIONS names the region; then it goes to the simulator's region prefix.

let dir: string;
let loader: string;
let sim: TestServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'partner-sim-redirect-'));
  loader = join(dir, 'register.mjs');
  // The loader from source, one file: the child runs today's code, not an older dist/.
  await build({
    entryPoints: [fromRoot('server', 'redirect', 'register.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: loader,
    logLevel: 'silent',
  });
  sim = await startTestServer({ regions: ['us', 'jp', 'eu', 'sg'] });
}, 60_000);
afterAll(async () => {
  await sim?.stop();
  await rm(dir, { recursive: true, force: true });
});

// A client of the EU host: fetch and https.request. Any name it looks up fails at once
// (named LOOKED_UP), so nothing leaves the machine even if the loader let it through.
const CLIENT = `
import dns from 'node:dns';
import https from 'node:https';
const looked = [];
dns.lookup = (host, o, cb) => {
  looked.push(host);
  process.nextTick(typeof o === 'function' ? o : cb, Object.assign(new Error('looked up ' + host), { code: 'LOOKED_UP' }));
};
const [id, secret] = process.argv.slice(1);
const url = 'https://platform-eu.plaud.ai/developer/api/oauth/partner/access-token';
const auth = 'Basic ' + Buffer.from(id + ':' + secret).toString('base64');
const out = { looked };
try {
  const r = await fetch(url, { method: 'POST', headers: { authorization: auth } });
  out.fetch = { status: r.status, region: JSON.parse(Buffer.from((await r.json()).access_token.split('.')[1], 'base64url')).region };
} catch (e) {
  out.fetch = { error: e.name + ': ' + e.message, code: e.cause?.code, syscall: e.cause?.syscall, hostname: e.cause?.hostname };
}
out.https = await new Promise((resolve) => {
  const req = https.request(url, { method: 'POST', headers: { authorization: auth } }, (res) => { res.resume(); resolve({ status: res.statusCode }); });
  req.on('error', (e) => resolve({ error: e.message, code: e.code, syscall: e.syscall }));
  req.end();
});
console.log(JSON.stringify(out));
`;

async function client(regions: string | undefined, app: { client_id: string; secret_key: string }) {
  const env: NodeJS.ProcessEnv = { ...process.env, PARTNER_SIM_URL: sim.url };
  delete env.PARTNER_SIM_REGIONS;
  if (regions !== undefined) env.PARTNER_SIM_REGIONS = regions;
  const { stdout } = await execFileTracked(
    process.execPath,
    ['--import', loader, '--input-type=module', '-e', CLIENT, app.client_id, app.secret_key],
    { env, timeout: 30_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

describe('node --import partner-sim/redirect and the EU host', () => {
  it('fails it as an unresolvable name by default (fetch and https), looking nothing up', async () => {
    const r = await client(undefined, { client_id: 'x', secret_key: 'y' });
    expect(r.looked).toEqual([]);
    expect(r.fetch).toEqual({
      error: 'TypeError: fetch failed',
      code: 'ENOTFOUND',
      syscall: 'getaddrinfo',
      hostname: 'platform-eu.plaud.ai',
    });
    expect(r.https).toEqual({
      error: 'getaddrinfo ENOTFOUND platform-eu.plaud.ai',
      code: 'ENOTFOUND',
      syscall: 'getaddrinfo',
    });
  });

  it('sends it to /eu/developer/api when PARTNER_SIM_REGIONS names eu', async () => {
    const app = await http('POST', `${sim.admin}/apps`, { json: { region: 'eu' } });
    expect(app.status).toBe(201);
    const r = await client('us,jp,eu', app.body);
    expect(r.looked).toEqual([]);
    expect(r.fetch).toEqual({ status: 200, region: 'eu' });
    expect(r.https).toEqual({ status: 200 });
  });
});
