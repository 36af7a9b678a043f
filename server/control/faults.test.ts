import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { completeUpload, md5hex, putPart, startUpload } from '../client/steps.js';
import { uploadAll } from '../client/upload.js';
import { basicAuth, bearer, DEMO_US, exchangeToken, http, OTHER_US, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// Every fault kind as a real HTTP client sees it, against one simulator whose rules are
// cleared before each test.

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer({ chunkSize: 1024 });
});
afterAll(() => sim.stop());
beforeEach(async () => {
  await http('DELETE', `${sim.admin}/faults`);
});

const tokenUrl = () => `${sim.api}/oauth/partner/access-token`;
const exchange = (app = DEMO_US, headers: Record<string, string> = {}) =>
  exchangeToken(sim.api, app, headers);
const addFault = async (rule: Record<string, unknown>) => {
  const r = await http('POST', `${sim.admin}/faults`, { json: rule });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string };
};
/** The error a fetch rejected with, and its cause's code (ECONNRESET, ...). */
const failure = async (p: Promise<unknown>) => {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as (Error & { cause?: { code?: string } }) | undefined;
  expect(err, 'the request should have failed').toBeDefined();
  return { name: err!.name, code: err!.cause?.code };
};

describe('fault rules: statuses', () => {
  it('answers 503 `times` times, then normally, and counts down in the listing', async () => {
    const f = await addFault({ operation: 'getPartnerToken', status: 503, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await exchange()).status);
    expect(statuses).toEqual([503, 503, 200]);
    const list = await http('GET', `${sim.admin}/faults`);
    expect(list.body).toEqual([expect.objectContaining({ id: f.id, remaining: 0, hits: 2, times: 2 })]);
  });

  it('gives 429 a Retry-After and the error body of the surface', async () => {
    await addFault({ operation: 'getPartnerToken', status: 429, times: 1 });
    const r = await exchange();
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.body).toMatchObject({ detail: 'RATE_LIMITED' });
  });

  it.each([500, 502, 503])('answers %i once with the default error body', async (status) => {
    const { partner } = await userToken(sim.api, DEMO_US);
    await addFault({ operation: 'createUserToken', status, times: 1 });
    const mint = () =>
      http('POST', `${sim.api}/open/partner/users/access-token`, {
        headers: bearer(partner),
        json: { user_id: 'fault-user-01' },
      });
    const r = await mint();
    expect(r.status).toBe(status);
    expect(r.body).toEqual({
      detail: expect.any(String),
      message: expect.stringContaining('Injected fault'),
    });
    expect((await mint()).status).toBe(200);
  });

  it('sends a custom status, body and headers exactly as given', async () => {
    const { partner } = await userToken(sim.api, DEMO_US);
    await addFault({
      operation: 'createUserToken',
      status: 502,
      body: { detail: 'UPSTREAM', message: 'boom' },
      headers: { 'Retry-After': '7', 'X-Trace': 'abc' },
    });
    const r = await http('POST', `${sim.api}/open/partner/users/access-token`, {
      headers: bearer(partner),
      json: { user_id: 'fault-user-01' },
    });
    expect(r.status).toBe(502);
    expect(r.body).toEqual({ detail: 'UPSTREAM', message: 'boom' });
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.headers.get('x-trace')).toBe('abc');
  });

  it('answers storage faults as S3 XML errors', async () => {
    const { user } = await userToken(sim.api, DEMO_US);
    const s = await startUpload(sim.api, user, 10);
    await addFault({ operation: 'uploadPart', status: 503, times: 1 });
    const r = await putPart(s.Parts[0]!.PresignedUrl, Buffer.alloc(10));
    expect(r.status).toBe(503);
    expect(r.headers.get('content-type')).toContain('application/xml');
    expect(r.text).toContain('<Code>ServiceUnavailable</Code>');
    expect((await putPart(s.Parts[0]!.PresignedUrl, Buffer.alloc(10))).status).toBe(200);
  });

  it('treats HEAD of a file as headFile, for rules and the journal, apart from downloadFile', async () => {
    const { user } = await userToken(sim.api, DEMO_US);
    const file = await uploadAll(sim.api, user, 10, (_p, n) => new Uint8Array(n).fill(3));
    await http('DELETE', `${sim.admin}/requests`);
    await addFault({ operation: 'headFile', status: 503, times: 1 });
    expect((await fetch(file.DownloadUrl)).status).toBe(200);
    expect((await fetch(file.DownloadUrl, { method: 'HEAD' })).status).toBe(503);
    expect((await fetch(file.DownloadUrl, { method: 'HEAD' })).status).toBe(200);
    await addFault({ operation: 'downloadFile', status: 502, times: 1 });
    expect((await fetch(file.DownloadUrl, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(file.DownloadUrl)).status).toBe(502);
    const journal = await http('GET', `${sim.admin}/requests?client_id=${DEMO_US.client_id}`);
    const ops = (journal.body as { operation: string; method: string; status: number }[])
      .filter((e) => e.operation === 'headFile' || e.operation === 'downloadFile')
      .map((e) => `${e.method} ${e.operation} ${e.status}`)
      .reverse();
    expect(ops).toEqual([
      'GET downloadFile 200',
      'HEAD headFile 503',
      'HEAD headFile 200',
      'HEAD headFile 200',
      'GET downloadFile 502',
    ]);
  });
});

describe('fault rules: latency, reset, hang, malformed, wrong ETag', () => {
  it('delays by delay_ms, then answers normally', async () => {
    // A delay long enough that a busy CI machine cannot blur delayed and undelayed answers.
    await addFault({ operation: 'getPartnerToken', delay_ms: 1000, times: 1 });
    const t0 = performance.now();
    const r = await exchange();
    const slow = performance.now() - t0;
    expect(r.status).toBe(200);
    expect(slow).toBeGreaterThanOrEqual(990);
    const t1 = performance.now();
    await exchange();
    expect(performance.now() - t1).toBeLessThan(900);
  });

  it('delays, then answers the given status', async () => {
    await addFault({ operation: 'getPartnerToken', delay_ms: 120, status: 504, times: 1 });
    const t0 = performance.now();
    const r = await exchange();
    expect(r.status).toBe(504);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(110);
  });

  it('resets the connection', async () => {
    await addFault({ operation: 'getPartnerToken', action: 'reset', times: 1 });
    const err = await failure(
      fetch(tokenUrl(), { method: 'POST', headers: basicAuth(DEMO_US.client_id, DEMO_US.secret_key) }),
    );
    expect(err.name).toBe('TypeError');
    expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(err.code);
    expect((await exchange()).status).toBe(200);
  });

  it('hangs until the client gives up, and journals the abandoned request', async () => {
    const f = await addFault({ operation: 'getPartnerToken', action: 'hang', times: 1 });
    const t0 = performance.now();
    const err = await failure(
      fetch(tokenUrl(), {
        method: 'POST',
        headers: basicAuth(DEMO_US.client_id, DEMO_US.secret_key),
        signal: AbortSignal.timeout(300),
      }),
    );
    expect(err.name).toBe('TimeoutError');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    // The entry is written when the server sees the connection close, just after the abort.
    let entry: { status: number; error?: string; fault_id: string } | undefined;
    for (let i = 0; i < 50 && !entry; i++) {
      const j = await http('GET', `${sim.admin}/requests?operation=getPartnerToken&limit=1`);
      if (j.body[0]?.fault_id === f.id) entry = j.body[0];
      else await new Promise((r) => setTimeout(r, 20));
    }
    expect(entry).toMatchObject({ status: 0, fault_id: f.id });
    expect(entry?.error).toContain('hang');
  });

  it('sends a truncated JSON body with 200', async () => {
    await addFault({ operation: 'getPartnerToken', action: 'malformed', times: 1 });
    const r = await fetch(tokenUrl(), {
      method: 'POST',
      headers: basicAuth(DEMO_US.client_id, DEMO_US.secret_key),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    const text = await r.text();
    expect(text.startsWith('{"access_token":')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('returns a wrong ETag for a stored part, so completion with it fails', async () => {
    const { user } = await userToken(sim.api, DEMO_US);
    const bytes = Buffer.from('x'.repeat(1500));
    const s = await startUpload(sim.api, user, bytes.length);
    await addFault({ operation: 'uploadPart', action: 'wrong_etag', match: { part_number: 2 } });
    const p1 = await putPart(s.Parts[0]!.PresignedUrl, bytes.subarray(0, 1024));
    const p2 = await putPart(s.Parts[1]!.PresignedUrl, bytes.subarray(1024));
    expect(p1.etag).toBe(`"${md5hex(bytes.subarray(0, 1024))}"`);
    expect(p2.status).toBe(200);
    expect(p2.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(p2.etag).not.toBe(`"${md5hex(bytes.subarray(1024))}"`);
    const done = await completeUpload(sim.api, user, {
      file_id: s.FileId,
      upload_id: s.UploadId,
      part_list: [
        { PartNumber: 1, ETag: p1.etag! },
        { PartNumber: 2, ETag: p2.etag! },
      ],
    });
    expect(done.status).toBe(400);
    expect(done.body.detail).toBe('InvalidPart');
  });
});

describe('match narrows a rule', () => {
  it('by client_id: only that app is hit', async () => {
    await addFault({ operation: 'getPartnerToken', status: 503, match: { client_id: OTHER_US.client_id } });
    expect((await exchange(DEMO_US)).status).toBe(200);
    expect((await exchange(OTHER_US)).status).toBe(503);
  });

  it('by sn, user_id and path_contains', async () => {
    const { partner, user } = await userToken(sim.api, DEMO_US);
    await addFault({ operation: 'getDeviceBinding', status: 500, match: { sn: '881FAULT0001' } });
    await addFault({ operation: 'createUserToken', status: 503, match: { user_id: 'unlucky-user' } });
    await addFault({ operation: 'getTranscription', status: 502, match: { path_contains: 'cursed' } });
    const binding = (sn: string) =>
      http('GET', `${sim.api}/open/partner/sdk/binding?type=notepro&sn=${sn}`, { headers: bearer(user) });
    expect((await binding('881FAULT0001')).status).toBe(500);
    // Serials are case-insensitive in the registry, so in rules too.
    expect((await binding('881fault0001')).status).toBe(500);
    expect((await binding('881FAULT0002')).status).not.toBe(500);
    const mint = (user_id: string) =>
      http('POST', `${sim.api}/open/partner/users/access-token`, {
        headers: bearer(partner),
        json: { user_id },
      });
    expect((await mint('unlucky-user')).status).toBe(503);
    expect((await mint('lucky-user')).status).toBe(200);
    const task = (id: string) =>
      http('GET', `${sim.api}/open/partner/ai/transcriptions/${id}`, {
        headers: { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key },
      });
    expect((await task('cursed-id')).status).toBe(502);
    expect((await task('plain-id')).status).toBe(404);
  });

  it('lists and deletes the rules of one app only', async () => {
    const a = await addFault({
      operation: 'getPartnerToken',
      status: 503,
      match: { client_id: DEMO_US.client_id },
    });
    await addFault({ operation: 'getPartnerToken', status: 503, match: { client_id: OTHER_US.client_id } });
    const mine = await http('GET', `${sim.admin}/faults?client_id=${DEMO_US.client_id}`);
    expect(mine.body.map((f: { id: string }) => f.id)).toEqual([a.id]);
    expect((await http('DELETE', `${sim.admin}/faults?client_id=${OTHER_US.client_id}`)).status).toBe(204);
    expect((await http('GET', `${sim.admin}/faults`)).body.map((f: { id: string }) => f.id)).toEqual([a.id]);
    expect((await http('DELETE', `${sim.admin}/faults/${a.id}`)).status).toBe(204);
    const again = await http('DELETE', `${sim.admin}/faults/${a.id}`);
    expect(again.status).toBe(404);
    expect(again.body.detail).toBe('FAULT_NOT_FOUND');
  });
});

describe('X-Sim-Fault header', () => {
  it('injects a status with Retry-After for this request only', async () => {
    const r = await exchange(DEMO_US, { 'X-Sim-Fault': 'status=503; retry_after=2' });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('2');
    expect(r.body.detail).toBe('SERVICE_UNAVAILABLE');
    expect((await exchange()).status).toBe(200);
  });

  it('injects latency and a reset', async () => {
    const t0 = performance.now();
    expect((await exchange(DEMO_US, { 'X-Sim-Fault': 'delay_ms=150' })).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    const err = await failure(
      fetch(tokenUrl(), {
        method: 'POST',
        headers: { ...basicAuth(DEMO_US.client_id, DEMO_US.secret_key), 'X-Sim-Fault': 'action=reset' },
      }),
    );
    expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(err.code);
  });

  it.each([
    'status=abc',
    'colour=red',
    'retry_after=2',
    'action=wrong_etag',
    'action=explode',
  ])('refuses %s with 422 naming the header', async (value) => {
    const r = await exchange(DEMO_US, { 'X-Sim-Fault': value });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['header', 'x-sim-fault']);
  });
});

describe('createFault input', () => {
  it.each([
    [{ operation: 'noSuchOp', status: 500 }, 'operation'],
    [{ operation: 'getPartnerToken' }, 'status'],
    [{ operation: 'getPartnerToken', action: 'wrong_etag' }, 'action'],
    [{ operation: 'getPartnerToken', action: 'reset', status: 500 }, 'status'],
    [{ operation: 'getPartnerToken', transcription_outcome: 'FAILURE' }, 'transcription_outcome'],
    [{ operation: 'getPartnerToken', body: { a: 1 } }, 'body'],
    [{ operation: 'getPartnerToken', action: 'malformed', body: { a: 1 } }, 'body'],
    [{ operation: 'uploadPart', action: 'wrong_etag', status: 500 }, 'status'],
    [{ operation: 'getPartnerToken', status: 500, probability: 2 }, 'probability'],
    [{ operation: 'getPartnerToken', status: 500, match: { colour: 'red' } }, 'match'],
  ])('refuses %j with 422 naming %s', async (json, field) => {
    const r = await http('POST', `${sim.admin}/faults`, { json });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc[1])).toContain(field);
  });
});
