import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftReport } from '../contract/drift.js';
import { verifyJwt } from '../domain/jwt.js';
import { startSimulator } from '../embed/startSimulator.js';
import { compareRun } from '../testing/compareRun.js';
import { DEMO_US } from '../testing/http.js';
import { startLoopbackGateway } from '../testing/loopbackGateway.js';
import { mistakesFlow } from '../testing/mistakesFlow.js';
import { Carry } from './carry.js';
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

  it('a token no answer minted is refused for its signature, as recorded (401 INVALID_TOKEN), by a target that tells a malformed token apart', async () => {
    const recorded = JSON.parse(await readFile(file, 'utf8')) as {
      log: {
        entries: {
          request: { headers: { name: string; value: string }[] };
          response: { status: number; content: { text: string } };
        }[];
      };
    };
    const foreign = recorded.log.entries[3]!;
    expect(foreign.response.status).toBe(401);
    expect(JSON.parse(foreign.response.content.text)).toMatchObject({ detail: 'INVALID_TOKEN' });
    const auth = foreign.request.headers.find((h) => h.name.toLowerCase() === 'authorization')!.value;
    expect(auth).toMatch(/^Bearer redacted-\d+$/);
    // A target whose gateway answers a bearer that is not a JWT at all otherwise (400
    // MALFORMED_TOKEN) than one whose signature fails (the service's 401 INVALID_TOKEN).
    const target = await startSimulator();
    const seen: { status: number; detail: unknown }[] = [];
    const gateway = await startLoopbackGateway(target.url, {
      before: async (req) => {
        const bearer = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
        if (req.path.includes('/users/access-token') && bearer && bearer.split('.').length !== 3)
          return { status: 400, json: { detail: 'MALFORMED_TOKEN', message: 'not a JWT' } };
        return undefined;
      },
      answer: (req, status, body) => {
        if (req.path.includes('/users/access-token') && status === 401)
          seen.push({ status, detail: (JSON.parse(body.toString()) as { detail: unknown }).detail });
        return body;
      },
    });
    try {
      const { code, out } = await compareRun([file, '--json', '--fail-on-drift', '--target', gateway.url]);
      expect((JSON.parse(out) as DriftReport).drift).toEqual([]);
      expect(code).toBe(0);
      expect(seen).toEqual([{ status: 401, detail: 'INVALID_TOKEN' }]);
    } finally {
      await gateway.stop();
      await target.stop();
    }
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
      new Carry(),
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

  it('a Bearer placeholder no answer minted is a JWT no key verifies, the same each use; a minted one is carried', () => {
    const carry = new Carry();
    carry.set('redacted-4', 'minted.by.target');
    const creds = new ReplayCredentials(app, [], undefined, carry);
    const forged = creds.header('authorization', 'Bearer redacted-7')!;
    const token = forged.replace(/^Bearer /, '');
    expect(token.split('.')).toHaveLength(3);
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toEqual({
      alg: 'HS256',
      typ: 'JWT',
    });
    expect(verifyJwt(token, Buffer.alloc(32))).toBeUndefined();
    expect(creds.header('authorization', 'Bearer redacted-7')).toBe(forged);
    expect(creds.header('authorization', 'Bearer redacted-8')).not.toBe(forged);
    expect(creds.header('authorization', 'Bearer redacted-4')).toBeUndefined();
  });
});
