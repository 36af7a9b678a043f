import { describe, expect, it } from 'vitest';
import { completeUpload, putPart, startUpload } from '../client/steps.js';
import { Journal } from '../store/memoryJournal.js';
import { basicAuth, bearer, DEMO_US, exchangeToken, http, OTHER_US, userToken } from '../testing/http.js';
import type { TestServer } from '../testing/testServer.js';
import { useTestServers } from '../testing/useTestServers.js';
import { summarizeBody } from './entryBounds.js';
import { REDACTED, redactHeaders, scrub } from './redact.js';

const servers = useTestServers();
const start = servers.start;
const exchange = (s: TestServer, app = DEMO_US) => exchangeToken(s.api, app);
// biome-ignore lint/suspicious/noExplicitAny: journal entries are read as JSON
const journal = async (s: TestServer, query = ''): Promise<any[]> => {
  const r = await http('GET', `${s.admin}/requests${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body;
};

describe('request journal', () => {
  it('records partner API and storage requests, not control API ones, newest first', async () => {
    const s = await start({ chunkSize: 1024 });
    const { user } = await userToken(s.api, DEMO_US);
    const up = await startUpload(s.api, user, 10);
    await putPart(up.Parts[0]!.PresignedUrl, Buffer.alloc(10));
    await http('GET', `${s.api}/no/such/path`);
    await http('GET', `${s.admin}/clock`);
    const all = await journal(s);
    expect(all.map((e) => e.operation)).toEqual([
      null,
      'uploadPart',
      'generatePresignedUrls',
      'createUserToken',
      'getPartnerToken',
    ]);
    const [notFound, part, presign] = all;
    expect(notFound).toMatchObject({ status: 404, method: 'GET', path: '/developer/api/no/such/path' });
    expect(part).toMatchObject({
      method: 'PUT',
      status: 200,
      surface: 'storage',
      client_id: DEMO_US.client_id,
      body_summary: { bytes: 10 },
      fault_id: null,
    });
    expect(presign).toMatchObject({
      status: 200,
      surface: 'api',
      region: 'us',
      client_id: DEMO_US.client_id,
      body_summary: { filesize: 10, filetype: 'mp3' },
    });
    expect(presign.latency_ms).toBeGreaterThan(0);
    expect(Date.parse(presign.time)).toBeGreaterThan(0);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort().reverse());
  });

  it('filters by operation, status, client_id, since and limit', async () => {
    const s = await start();
    await exchange(s);
    await exchange(s, OTHER_US);
    await exchange(s, { ...DEMO_US, secret_key: 'wrong' });
    const mark = new Date(Date.parse((await http('GET', `${s.admin}/clock`)).body.now) + 1).toISOString();
    await http('POST', `${s.admin}/clock`, { json: { advance_ms: 5000 } });
    await exchange(s, OTHER_US);
    expect(await journal(s, '?operation=getPartnerToken')).toHaveLength(4);
    const refused = await journal(s, '?status=401');
    // A refused request is filed under the client id it claimed.
    expect(refused.map((e) => e.client_id)).toEqual([DEMO_US.client_id]);
    expect(await journal(s, `?client_id=${OTHER_US.client_id}`)).toHaveLength(2);
    expect(await journal(s, `?client_id=${DEMO_US.client_id}&status=200`)).toHaveLength(1);
    const since = await journal(s, `?since=${encodeURIComponent(mark)}`);
    expect(since.map((e) => e.client_id)).toEqual([OTHER_US.client_id]);
    expect(await journal(s, '?limit=2')).toHaveLength(2);
    for (const q of ['?limit=0', '?status=99', '?since=yesterday']) {
      const r = await http('GET', `${s.admin}/requests${q}`);
      expect(r.status, q).toBe(422);
      expect(r.body.detail[0].loc[0]).toBe('query');
    }
  });

  it('keeps only the last --journal-size entries', async () => {
    const s = await start({ journalSize: 5 });
    for (let i = 0; i < 8; i++) await exchange(s);
    const all = await journal(s, '?limit=100');
    expect(all.map((e) => e.id)).toEqual([
      'req_000008',
      'req_000007',
      'req_000006',
      'req_000005',
      'req_000004',
    ]);
  });

  it('clears everything or one app', async () => {
    const s = await start();
    await exchange(s);
    await exchange(s, OTHER_US);
    expect((await http('DELETE', `${s.admin}/requests?client_id=${DEMO_US.client_id}`)).status).toBe(204);
    expect((await journal(s)).map((e) => e.client_id)).toEqual([OTHER_US.client_id]);
    await http('DELETE', `${s.admin}/requests`);
    expect(await journal(s)).toEqual([]);
  });

  it('marks requests a fault shaped', async () => {
    const s = await start();
    const f = await http('POST', `${s.admin}/faults`, {
      json: { operation: 'getPartnerToken', status: 503 },
    });
    await exchange(s);
    await http('POST', `${s.api}/oauth/partner/access-token`, {
      headers: { ...basicAuth(OTHER_US.client_id, OTHER_US.secret_key), 'X-Sim-Fault': 'status=500' },
    });
    const [header, rule] = await journal(s);
    expect(rule).toMatchObject({ status: 503, fault_id: f.body.id });
    expect(header).toMatchObject({ status: 500, fault_id: 'header' });
  });
});

describe('response excerpts', () => {
  it('keeps a bounded, redacted excerpt of non-2xx answers, none of 2xx ones', async () => {
    const s = await start({ chunkSize: 1024 });
    const p = await exchange(s);
    expect(p.status).toBe(200);
    await exchange(s, { ...DEMO_US, secret_key: 'wrong' });
    const up = await startUpload(s.api, (await userToken(s.api, DEMO_US)).user, 10);
    // A tampered signature: the storage host's S3 XML error.
    await http('PUT', up.Parts[0]!.PresignedUrl.replace(/X-Amz-Signature=[0-9a-f]+/, 'X-Amz-Signature=00'), {
      raw: Buffer.alloc(10),
    });
    // A fault whose body is large and carries a token and a secret-named field.
    const token = p.body.access_token as string;
    await http('POST', `${s.admin}/faults`, {
      json: {
        operation: 'createUserToken',
        status: 502,
        times: 1,
        body: {
          detail: 'UPSTREAM',
          echo: `Bearer ${token}`,
          secret_key: 'sk-live',
          filler: 'x'.repeat(100_000),
        },
      },
    });
    await http('POST', `${s.api}/open/partner/users/access-token`, {
      headers: bearer(token),
      json: { user_id: 'user-000001' },
    });
    const all = await journal(s, '?limit=50');
    const byOp = (op: string, status: number) => all.find((e) => e.operation === op && e.status === status);
    expect(byOp('getPartnerToken', 200).response_excerpt).toBeUndefined();
    expect(byOp('getPartnerToken', 401).response_excerpt).toMatchObject({ detail: 'CLIENT_NOT_FOUND' });
    const xml = byOp('uploadPart', 403).response_excerpt as string;
    expect(xml).toMatch(/^<\?xml[\s\S]*<Code>SignatureDoesNotMatch<\/Code>/);
    const fault = byOp('createUserToken', 502);
    expect(fault.response_excerpt).toMatchObject({ detail: 'UPSTREAM', secret_key: REDACTED });
    const text = JSON.stringify(fault.response_excerpt);
    expect(text).not.toContain(token);
    expect(text).not.toContain('sk-live');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2048);
    // Counted by status too.
    const n = await http('GET', `${s.admin}/requests/count?status=502`);
    expect(n.body).toEqual({ count: 1, complete: true });
  });
});

describe('redaction', () => {
  it('never keeps a token, secret, API key or signature in the journal', async () => {
    const s = await start({ chunkSize: 1024, transcriptionDelay: 0 });
    const secrets: string[] = [DEMO_US.secret_key, DEMO_US.api_key];
    const p = await exchange(s);
    secrets.push(p.body.access_token, p.body.refresh_token);
    const refreshed = await http('POST', `${s.api}/oauth/partner/access-token/refresh`, {
      headers: basicAuth(DEMO_US.client_id, DEMO_US.secret_key),
      form: { refresh_token: p.body.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    secrets.push(refreshed.body.access_token, refreshed.body.refresh_token);
    const u = await http('POST', `${s.api}/open/partner/users/access-token`, {
      headers: bearer(p.body.access_token),
      json: { user_id: 'redaction-user' },
    });
    secrets.push(u.body.access_token);
    const user = u.body.access_token as string;
    const bytes = Buffer.alloc(1500, 7);
    const up = await startUpload(s.api, user, bytes.length);
    const etags = [];
    for (const part of up.Parts) {
      secrets.push(new URL(part.PresignedUrl).searchParams.get('X-Amz-Signature')!);
      etags.push(
        (
          await putPart(
            part.PresignedUrl,
            bytes.subarray((part.PartNumber - 1) * 1024, part.PartNumber * 1024),
          )
        ).etag!,
      );
    }
    const done = await completeUpload(s.api, user, {
      file_id: up.FileId,
      upload_id: up.UploadId,
      part_list: etags.map((ETag, i) => ({ PartNumber: i + 1, ETag })),
    });
    expect(done.status).toBe(200);
    secrets.push(new URL(done.body.DownloadUrl).searchParams.get('X-Amz-Signature')!);
    expect((await (await fetch(done.body.DownloadUrl)).arrayBuffer()).byteLength).toBe(1500);
    const apiKeyHeaders = { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key };
    const task = await http('POST', `${s.api}/open/partner/ai/transcriptions/`, {
      headers: apiKeyHeaders,
      json: { file_url: done.body.DownloadUrl },
    });
    expect(task.status).toBe(200);
    await http('GET', `${s.api}/open/partner/ai/transcriptions/${task.body.transcription_id}`, {
      headers: apiKeyHeaders,
    });
    // A refused request with a secret in it is journaled too, and redacted too.
    await http('POST', `${s.api}/oauth/partner/access-token`, {
      headers: basicAuth(DEMO_US.client_id, 'a-wrong-but-secret-value'),
    });
    secrets.push(Buffer.from(`${DEMO_US.client_id}:${DEMO_US.secret_key}`).toString('base64'));
    secrets.push('a-wrong-but-secret-value');

    const entries = await journal(s, '?limit=1000');
    expect(new Set(entries.map((e) => e.operation))).toEqual(
      new Set([
        'getPartnerToken',
        'refreshPartnerToken',
        'createUserToken',
        'generatePresignedUrls',
        'uploadPart',
        'completeUpload',
        'downloadFile',
        'createTranscription',
        'getTranscription',
      ]),
    );
    const text = JSON.stringify(entries);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(text, `journal leaks ${secret.slice(0, 12)}…`).not.toContain(secret);
    }
    expect(text).toContain(`"authorization":"Bearer ${REDACTED}"`);
    expect(text).toContain(`"x-client-api-key":"${REDACTED}"`);
    expect(text).toContain(`X-Amz-Signature=${REDACTED}`);
    const refresh = entries.find((e) => e.operation === 'refreshPartnerToken');
    expect(refresh.body_summary).toEqual({ refresh_token: REDACTED });
  });
});

describe('redact helpers', () => {
  it('redact secret headers and keep the rest', () => {
    expect(
      redactHeaders({
        authorization: 'Basic ZGVtbzpzZWNyZXQ=',
        'X-Client-Api-Key': 'k',
        cookie: 'a=b',
        'x-client-id': 'demo',
        'user-agent': 'curl/8',
      }),
    ).toEqual({
      authorization: `Basic ${REDACTED}`,
      'x-client-api-key': REDACTED,
      cookie: REDACTED,
      'x-client-id': 'demo',
      'user-agent': 'curl/8',
    });
  });

  it('scrub JWTs, presigned signatures and generated keys from free text', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2ln';
    expect(scrub(`token ${jwt} end`)).toBe(`token ${REDACTED} end`);
    expect(scrub('/f?X-Amz-Credential=AK%2F1&X-Amz-Date=1&X-Amz-Signature=abc')).toBe(
      `/f?X-Amz-Credential=${REDACTED}&X-Amz-Date=1&X-Amz-Signature=${REDACTED}`,
    );
    expect(scrub('rt_abcdefghijklmnopqrstuvwxyz')).toBe(REDACTED);
  });

  it('summarize bodies: fields with secrets redacted, long values cut, binary as size', () => {
    expect(
      summarizeBody(
        { user_id: 'u1', secret_key: 'x', nested: { api_key: 'y', n: 1 }, long: 'a'.repeat(300) },
        {},
      ),
    ).toEqual({
      user_id: 'u1',
      secret_key: REDACTED,
      nested: { api_key: REDACTED, n: 1 },
      long: `${'a'.repeat(256)}… (300 chars)`,
    });
    expect(summarizeBody(undefined, { 'content-length': '42', 'content-type': 'audio/mpeg' })).toEqual({
      bytes: 42,
      content_type: 'audio/mpeg',
    });
    expect(summarizeBody(undefined, {})).toBeUndefined();
  });
});

describe('counting requests (verify)', () => {
  it('counts requests by method, path, app, status and since, for CI assertions', async () => {
    const s = await start();
    const key = (app: typeof DEMO_US) => ({ 'x-client-id': app.client_id, 'x-client-api-key': app.api_key });
    const submit = `${s.api}/open/partner/ai/transcriptions/`;
    const count = async (q: string) => {
      const r = await http('GET', `${s.admin}/requests/count?${q}`);
      expect(r.status, r.text).toBe(200);
      return r.body as { count: number; complete: boolean };
    };
    await http('POST', submit, { headers: key(DEMO_US), json: {} });
    await http('POST', submit, { headers: key(OTHER_US), json: {} });
    const mark = (await http('GET', `${s.admin}/clock`)).body.now as string;
    await http('POST', `${s.admin}/clock`, { json: { advance_ms: 1000 } });
    await http('POST', submit, { headers: key(DEMO_US), json: {} });
    await http('GET', `${s.api}/open/partner/ai/transcriptions/task_exec_00?x=1`, { headers: key(DEMO_US) });
    const path = encodeURIComponent('/developer/api/open/partner/ai/transcriptions/');
    expect(await count(`method=POST&path=${path}`)).toEqual({ count: 3, complete: true });
    expect((await count(`method=POST&path=${path}&client_id=${DEMO_US.client_id}`)).count).toBe(2);
    expect((await count(`method=POST&path=${path}&status=422`)).count).toBe(3);
    expect((await count(`method=POST&path=${path}&status=200`)).count).toBe(0);
    const since = encodeURIComponent(new Date(Date.parse(mark) + 1).toISOString());
    expect((await count(`path=${path}&since=${since}`)).count).toBe(1);
    // A trailing * matches a path prefix; the query string is never part of the path.
    expect((await count(`method=GET&path=${path}*`)).count).toBe(1);
    expect((await count(`method=GET&path=${path}task_exec_00`)).count).toBe(1);
    expect((await count('operation=createTranscription')).count).toBe(3);
    const bad = await http('GET', `${s.admin}/requests/count?method=post`);
    expect(bad.status).toBe(422);
    // The same filters narrow the listing.
    expect(await journal(s, `?method=GET&path=${path}*`)).toHaveLength(1);
  });

  it('says when a full ring may have dropped matches (complete: false)', async () => {
    const s = await start({ journalSize: 3 });
    for (let i = 0; i < 5; i++) await http('GET', `${s.api}/no/such/path`);
    const r = await http('GET', `${s.admin}/requests/count?method=GET`);
    expect(r.body).toEqual({ count: 3, complete: false });
    // Since a time the ring's oldest kept entry predates, nothing matching was dropped.
    await http('POST', `${s.admin}/clock`, { json: { advance_ms: 1000 } });
    const later = (await http('GET', `${s.admin}/clock`)).body.now as string;
    await http('GET', `${s.api}/no/such/path`);
    const since = await http('GET', `${s.admin}/requests/count?since=${encodeURIComponent(later)}`);
    expect(since.body).toEqual({ count: 1, complete: true });
  });
});

describe('per-app journal listing', () => {
  it('never returns more than --journal-size entries, own requests and claims together', async () => {
    const s = await start({ journalSize: 10 });
    const { user } = await userToken(s.api, DEMO_US);
    const key = { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key };
    // Verified requests fill the app's ring; requests that only name it (an unknown path with
    // its key, not authenticated) fill its unverified ring: 24 kept in all.
    for (let i = 0; i < 12; i++)
      await http('GET', `${s.api}/open/partner/sdk/binding?sn=888812345678`, { headers: bearer(user) });
    for (let i = 0; i < 12; i++) await http('GET', `${s.api}/open/partner/nope`, { headers: key });
    const listed = await journal(s, `?client_id=${DEMO_US.client_id}&limit=1000`);
    expect(listed).toHaveLength(10);
    // The newest ten: the claims came last.
    expect(listed.every((e) => e.unverified === true)).toBe(true);
    // Claims evict nothing: the app's own ten are all still there.
    const own = await journal(s, `?client_id=${DEMO_US.client_id}&unverified=false&limit=1000`);
    expect(own).toHaveLength(10);
    expect(own.every((e) => e.operation === 'getDeviceBinding')).toBe(true);
    expect(await journal(s, `?client_id=${DEMO_US.client_id}&limit=4`)).toHaveLength(4);
    // Following the pages never goes past the size either.
    let url: string | undefined = `${s.admin}/requests?client_id=${DEMO_US.client_id}&limit=4`;
    let paged = 0;
    while (url) {
      const r: Awaited<ReturnType<typeof http>> = await http('GET', url);
      paged += (r.body as unknown[]).length;
      url = /<([^>]+)>;\s*rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
    }
    expect(paged).toBe(10);
  });
});

describe('Journal ring', () => {
  const entry = (client_id: string) => ({
    time: '2024-01-01T00:00:00.000Z',
    operation: 'x',
    method: 'GET',
    path: '/',
    status: 200,
    latency_ms: 1,
    client_id,
    headers: {},
    fault_id: null,
  });

  it('wraps around and clears one app while keeping order', async () => {
    const j = new Journal(3);
    for (const c of ['a', 'b', 'a', 'b', 'a']) await j.add(entry(c), 0);
    expect((await j.list()).map((e) => e.id)).toEqual(['req_000005', 'req_000004', 'req_000003']);
    expect(await j.clear('a')).toBe(2);
    expect((await j.list()).map((e) => e.id)).toEqual(['req_000004']);
    await j.add(entry('c'), 0);
    expect((await j.list()).map((e) => e.id)).toEqual(['req_000006', 'req_000004']);
  });

  it('records nothing with capacity 0', async () => {
    const j = new Journal(0);
    await j.add(entry('a'), 0);
    expect(await j.list()).toEqual([]);
  });
});
