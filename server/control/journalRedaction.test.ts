import { describe, expect, it } from 'vitest';
import { completeUpload, putPart, startUpload } from '../client/steps.js';
import { basicAuth, bearer, DEMO_US, http, userToken } from '../testing/http.js';
import { useJournalServers } from '../testing/journalRequests.js';
import { summarizeBody } from './entryBounds.js';
import { REDACTED, redactHeaders, scrub } from './redact.js';

// What the request journal keeps of bodies and answers: bounded excerpts, never a secret.

const { start, exchange, journal } = useJournalServers();

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
