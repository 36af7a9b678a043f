import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftReport } from '../contract/drift.js';
import { startSimulator } from '../embed/startSimulator.js';
import { compareRun } from '../testing/compareRun.js';
import { DEMO_US } from '../testing/http.js';
import { mistakesFlow } from '../testing/mistakesFlow.js';
import { ReplayCredentials } from './credentials.js';
import type { HarEntry } from './har.js';

describe("compare: a client's own mistakes replay as recorded", () => {
  let dir: string;
  let file: string;
  let statuses: number[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'psim-mistakes-'));
    const upstream = await startSimulator();
    try {
      const recorder = await startSimulator({ config: { record: dir, upstream: upstream.url } });
      try {
        statuses = await mistakesFlow(recorder.url, DEMO_US);
      } finally {
        await recorder.stop();
      }
    } finally {
      await upstream.stop();
    }
    file = join(dir, (await readdir(dir))[0]!);
  }, 30_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a wrong secret, a bad body, a foreign token and an unknown serial and an expired token compare clean', async () => {
    // The session as recorded: the wrong secret was refused, the right one accepted.
    expect(statuses.slice(0, 4)).toEqual([401, 200, 422, 401]);
    expect(statuses.at(-1)).toBe(401); // the expired user token
    const har = await readFile(file, 'utf8');
    const basics = [...har.matchAll(/"Basic (redacted-\d+)"/g)].map((m) => m[1]);
    expect(new Set(basics).size).toBe(2);
    const { code, out } = await compareRun([file, '--json', '--fail-on-drift']);
    const report = JSON.parse(out) as DriftReport;
    expect(report.drift).toEqual([]);
    expect(code).toBe(0);
  });
});

describe('ReplayCredentials', () => {
  const app = { client_id: 'compare-1', secret_key: 'sk_good_secret', api_key: 'ak_good_key_0' };
  const entry = (status: number, headers: Record<string, string>) =>
    ({
      request: { headers: Object.entries(headers).map(([name, value]) => ({ name, value })) },
      response: { status },
    }) as unknown as HarEntry;
  it('the accepted placeholder is the app, a refused one a wrong value of its length, another app stays', () => {
    const creds = new ReplayCredentials(
      app,
      [
        entry(401, { 'X-Client-Api-Key': 'redacted-9', 'X-Client-Id': 'live-app' }),
        entry(200, { 'X-Client-Api-Key': 'redacted-2', 'X-Client-Id': 'live-app' }),
      ],
      'live-app',
    );
    expect(creds.header('x-client-api-key', 'redacted-2')).toBe(app.api_key);
    const wrong = creds.header('x-client-api-key', 'redacted-9')!;
    expect(wrong).not.toBe(app.api_key);
    expect(wrong).toHaveLength(app.api_key.length);
    expect(creds.header('x-client-api-key', 'redacted-9')).toBe(wrong);
    expect(creds.header('x-client-id', 'live-app')).toBe(app.client_id);
    expect(creds.header('x-client-id', 'someone-else')).toBe('someone-else');
    expect(creds.header('content-type', 'application/json')).toBeUndefined();
  });
});
