import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeUpload, md5hex, putPart, startUpload } from '../client/steps.js';
import { bearer, DEMO_US, http, OTHER_US, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

const CHUNK = 64 * 1024;
let sim: TestServer;
let token: string;
beforeAll(async () => {
  sim = await startTestServer({ chunkSize: CHUNK });
  token = (await userToken(sim.api, DEMO_US)).user;
});
afterAll(() => sim.stop());

const s3Code = (xml: string): string | undefined => /<Code>([^<]+)<\/Code>/.exec(xml)?.[1];

/** A session of `parts` parts (the last `lastSize` bytes) with every part uploaded. */
async function uploaded(parts = 3, lastSize = 1000) {
  const size = (parts - 1) * CHUNK + lastSize;
  const bytes = randomBytes(size);
  const s = await startUpload(sim.api, token, size);
  const etags: string[] = [];
  for (const p of s.Parts) {
    const r = await putPart(p.PresignedUrl, bytes.subarray((p.PartNumber - 1) * CHUNK, p.PartNumber * CHUNK));
    expect(r.status).toBe(200);
    etags.push(r.etag!);
  }
  const part_list = etags.map((ETag, i) => ({ PartNumber: i + 1, ETag }));
  return { s, bytes, etags, part_list, ids: { file_id: s.FileId, upload_id: s.UploadId } };
}

describe('generate-presigned-urls', () => {
  it('answers ceil(filesize / ChunkSize) signed part URLs on the storage host', async () => {
    const s = await startUpload(sim.api, token, 2 * CHUNK + 1);
    expect(s.ChunkSize).toBe(CHUNK);
    expect(s.Parts.map((p) => p.PartNumber)).toEqual([1, 2, 3]);
    const u = new URL(s.Parts[1]!.PresignedUrl);
    expect(`${u.origin}${u.pathname}`).toBe(`${sim.url}/storage/uploads/${s.FileId}`);
    expect(u.searchParams.get('partNumber')).toBe('2');
    expect(u.searchParams.get('uploadId')).toBe(s.UploadId);
    for (const k of ['Algorithm', 'Credential', 'Date', 'Expires', 'SignedHeaders', 'Signature']) {
      expect(u.searchParams.get(`X-Amz-${k}`)).toBeTruthy();
    }
    expect(u.searchParams.get('X-Amz-Expires')).toBe('3600');
  });

  it.each([
    [{ filesize: 0, filetype: 'mp3' }, 'filesize'],
    [{ filesize: 10, filetype: 'm p3' }, 'filetype'],
    [{ filesize: 10_000 * CHUNK + 1, filetype: 'mp3' }, 'filesize'],
  ])('refuses %j with 422 naming the field', async (json, field) => {
    const r = await http('POST', `${sim.api}/open/partner/files/upload/generate-presigned-urls`, {
      headers: bearer(token),
      json,
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', field]);
  });
});

describe('upload filetypes', () => {
  const presign = (s: TestServer, user: string, filetype: string) =>
    http('POST', `${s.api}/open/partner/files/upload/generate-presigned-urls`, {
      headers: bearer(user),
      json: { filesize: 10, filetype },
    });

  it('accepts mp3 and opus and refuses wav, m4a and others with 400 FILE_TYPE_INVALID by default', async () => {
    for (const t of ['mp3', 'opus']) expect((await presign(sim, token, t)).status, t).toBe(200);
    for (const t of ['wav', 'm4a', 'exe', 'MP3']) {
      const r = await presign(sim, token, t);
      expect(r.status, t).toBe(400);
      expect(r.body).toEqual({ detail: 'FILE_TYPE_INVALID', message: expect.stringContaining('mp3, opus') });
      // The refusal says how to accept the type in the simulator.
      expect(r.body.message).toContain(`--upload-filetypes ${t}`);
    }
  });

  it('refuses in the live error shape too, and accepts what --upload-filetypes adds', async () => {
    const live = await startTestServer({ errorShape: 'live' });
    const wide = await startTestServer({ uploadFiletypes: ['wav', 'm4a'] });
    try {
      const r = await presign(live, (await userToken(live.api, DEMO_US)).user, 'wav');
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ code: 400, message: expect.stringMatching(/^FILE_TYPE_INVALID: /) });
      const user = (await userToken(wide.api, DEMO_US)).user;
      for (const t of ['mp3', 'opus', 'wav', 'm4a'])
        expect((await presign(wide, user, t)).status, t).toBe(200);
      expect((await presign(wide, user, 'ogg')).status).toBe(400);
    } finally {
      await live.stop();
      await wide.stop();
    }
  });
});

describe('PUT of a part', () => {
  it('stores the part and answers its quoted MD5 as ETag, readable by browsers', async () => {
    const s = await startUpload(sim.api, token, 10);
    const r = await putPart(s.Parts[0]!.PresignedUrl, Buffer.from('0123456789'));
    expect(r.status).toBe(200);
    expect(r.etag).toBe(`"${md5hex(Buffer.from('0123456789'))}"`);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-expose-headers')).toMatch(/ETag/);
  });

  it('answers the CORS preflight', async () => {
    const s = await startUpload(sim.api, token, 10);
    const r = await fetch(s.Parts[0]!.PresignedUrl, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'PUT' },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(r.headers.get('access-control-expose-headers')).toContain('ETag');
  });

  it('checks signature parameters, expiry and signature before the session (S3 XML errors)', async () => {
    const s = await startUpload(sim.api, token, 10);
    const url = s.Parts[0]!.PresignedUrl;
    const body = Buffer.from('x');
    const missing = new URL(url);
    missing.searchParams.delete('X-Amz-Signature');
    const r1 = await putPart(missing.toString(), body);
    expect([r1.status, s3Code(r1.text)]).toEqual([400, 'AuthorizationQueryParametersError']);
    expect(r1.headers.get('content-type')).toMatch(/application\/xml/);

    for (const change of [
      (u: URL) => u.searchParams.set('partNumber', '2'),
      (u: URL) => u.searchParams.set('uploadId', 'u_other'),
      (u: URL) => u.searchParams.append('extra', '1'),
      (u: URL) => u.searchParams.set('X-Amz-Expires', '7200'),
      (u: URL) => {
        u.pathname = u.pathname.replace(s.FileId, 'f_other');
      },
    ]) {
      const u = new URL(url);
      change(u);
      const r = await putPart(u.toString(), body);
      expect([r.status, s3Code(r.text)]).toEqual([403, 'SignatureDoesNotMatch']);
    }

    await http('POST', `${sim.admin}/clock`, { json: { advance_ms: 3601_000 } });
    try {
      const r = await putPart(url, body);
      expect([r.status, s3Code(r.text)]).toEqual([403, 'AccessDenied']);
      expect(r.text).toContain('Request has expired');
    } finally {
      await http('POST', `${sim.admin}/clock`, { json: { advance_ms: -3601_000 } });
    }
  });

  it('refuses a part number outside 1–10000 with InvalidArgument', async () => {
    const s = await startUpload(sim.api, token, 10);
    const { presigner } = sim.services.storage;
    for (const partNumber of ['0', '10001', 'x']) {
      const qs = presigner.sign(
        'PUT',
        `/uploads/${s.FileId}`,
        { partNumber, uploadId: s.UploadId },
        Date.now(),
        60,
      );
      const r = await putPart(`${sim.url}/storage/uploads/${s.FileId}?${qs}`, Buffer.from('x'));
      expect([r.status, s3Code(r.text)]).toEqual([400, 'InvalidArgument']);
    }
  });

  it('checks Content-MD5 (InvalidDigest, BadDigest) and the part size (EntityTooLarge)', async () => {
    const s = await startUpload(sim.api, token, 2 * CHUNK);
    const url = s.Parts[0]!.PresignedUrl;
    const body = Buffer.from('hello');
    const good = createHash('md5').update(body).digest('base64');
    const wrong = createHash('md5').update('other').digest('base64');
    expect((await putPart(url, body, { 'content-md5': good })).status).toBe(200);
    const bad = await putPart(url, body, { 'content-md5': wrong });
    expect([bad.status, s3Code(bad.text)]).toEqual([400, 'BadDigest']);
    const malformed = await putPart(url, body, { 'content-md5': 'not-base64!' });
    expect([malformed.status, s3Code(malformed.text)]).toEqual([400, 'InvalidDigest']);
    const big = await putPart(url, randomBytes(CHUNK + 1));
    expect([big.status, s3Code(big.text)]).toEqual([400, 'EntityTooLarge']);
    // Without Content-Length (chunked), the limit is enforced while streaming.
    const chunked = await fetch(url, {
      method: 'PUT',
      body: new Blob([randomBytes(CHUNK + 10)]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect([chunked.status, s3Code(await chunked.text())]).toEqual([400, 'EntityTooLarge']);
  });

  it('keeps the stored part when another PUT of it is cut off half-way', async () => {
    const { s, bytes, part_list, ids } = await uploaded(2);
    // Announce a whole part, send half of it, hang up.
    await new Promise<void>((resolve) => {
      const req = request(s.Parts[0]!.PresignedUrl, { method: 'PUT', headers: { 'content-length': CHUNK } });
      req.on('error', () => {});
      req.on('close', resolve);
      req.write(randomBytes(CHUNK / 2), () => req.destroy());
    });
    const done = await completeUpload(sim.api, token, { ...ids, part_list });
    expect([done.status, done.body.FileMd5]).toEqual([200, md5hex(bytes)]);
    const got = Buffer.from(await (await fetch(done.body.DownloadUrl)).arrayBuffer());
    expect(got.equals(bytes)).toBe(true);
  });
});

describe('complete-upload', () => {
  it('accepts quoted and unquoted ETags and answers the real MD5', async () => {
    const { part_list, bytes, ids } = await uploaded(3);
    const mixed = part_list.map((p, i) => (i % 2 ? { ...p, ETag: p.ETag.replaceAll('"', '') } : p));
    const r = await completeUpload(sim.api, token, { ...ids, part_list: mixed, file_md5: md5hex(bytes) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ FileId: ids.file_id, FileType: 'mp3', FileMd5: md5hex(bytes) });
    const again = await completeUpload(sim.api, token, { ...ids, part_list });
    expect([again.status, again.body.detail]).toEqual([404, 'NoSuchUpload']);
  });

  it('uses the latest upload of a part number', async () => {
    const { s, part_list, ids } = await uploaded(2);
    const replaced = await putPart(s.Parts[1]!.PresignedUrl, Buffer.alloc(1000, 7));
    const stale = await completeUpload(sim.api, token, { ...ids, part_list });
    expect(stale.body.detail).toBe('InvalidPart');
    const fresh = [part_list[0]!, { PartNumber: 2, ETag: replaced.etag! }];
    expect((await completeUpload(sim.api, token, { ...ids, part_list: fresh })).status).toBe(200);
  });

  it('refuses bad part lists with clear codes and keeps the session for a retry', async () => {
    const { s, bytes, part_list, ids } = await uploaded(3);
    const [p1, p2, p3] = part_list as [(typeof part_list)[0], (typeof part_list)[0], (typeof part_list)[0]];
    const cases: [unknown, string][] = [
      [{ part_list: [p2, p1, p3] }, 'InvalidPartOrder'],
      [{ part_list: [p1, p1, p3] }, 'InvalidPartOrder'],
      [{ part_list: [p1, { ...p2, ETag: '"00000000000000000000000000000000"' }, p3] }, 'InvalidPart'],
      [{ part_list: [p1, p2, p3, { PartNumber: 4, ETag: p3.ETag }] }, 'InvalidPart'],
      [{ part_list: [p1, p3] }, 'FILE_SIZE_INVALID'],
      [{ part_list: [p1, p2] }, 'FILE_SIZE_INVALID'],
      [{ part_list, file_md5: '0'.repeat(32) }, 'FILE_MD5_NOT_MATCH'],
      [{ part_list, filetype: 'wav' }, 'FILE_TYPE_INVALID'],
    ];
    for (const [body, code] of cases) {
      const r = await completeUpload(sim.api, token, {
        ...ids,
        ...(body as { part_list: typeof part_list }),
      });
      expect([r.status, r.body.detail], JSON.stringify(body)).toEqual([400, code]);
    }
    // A part other than the last shorter than ChunkSize.
    const short = await putPart(s.Parts[1]!.PresignedUrl, bytes.subarray(CHUNK, CHUNK + 10));
    const small = await completeUpload(sim.api, token, {
      ...ids,
      part_list: [p1, { PartNumber: 2, ETag: short.etag! }, p3],
    });
    expect([small.status, small.body.detail]).toEqual([400, 'EntityTooSmall']);
    await putPart(s.Parts[1]!.PresignedUrl, bytes.subarray(CHUNK, 2 * CHUNK));
    expect((await completeUpload(sim.api, token, { ...ids, part_list })).status).toBe(200);
  });

  it("is invisible to another user's or app's token, and closes the upload to writes", async () => {
    const { s, part_list, ids } = await uploaded(2);
    const otherUser = (await userToken(sim.api, DEMO_US, 'someone-else')).user;
    const otherApp = (await userToken(sim.api, OTHER_US)).user;
    for (const t of [otherUser, otherApp]) {
      const r = await completeUpload(sim.api, t, { ...ids, part_list });
      expect([r.status, r.body.detail]).toEqual([404, 'NoSuchUpload']);
    }
    const wrongFile = await completeUpload(sim.api, token, { ...ids, file_id: 'f_x', part_list });
    expect(wrongFile.status).toBe(404);
    expect((await completeUpload(sim.api, token, { ...ids, part_list })).status).toBe(200);
    const late = await putPart(s.Parts[0]!.PresignedUrl, Buffer.from('late'));
    expect([late.status, s3Code(late.text)]).toEqual([404, 'NoSuchUpload']);
  });

  it('stores parts PUT concurrently', async () => {
    const size = 8 * CHUNK - 5;
    const bytes = randomBytes(size);
    const s = await startUpload(sim.api, token, size);
    const rs = await Promise.all(
      s.Parts.map((p) =>
        putPart(p.PresignedUrl, bytes.subarray((p.PartNumber - 1) * CHUNK, p.PartNumber * CHUNK)),
      ),
    );
    const part_list = rs.map((r, i) => ({ PartNumber: i + 1, ETag: r.etag! }));
    const done = await completeUpload(sim.api, token, {
      file_id: s.FileId,
      upload_id: s.UploadId,
      part_list,
    });
    expect(done.body.FileMd5).toBe(md5hex(bytes));
    const got = Buffer.from(await (await fetch(done.body.DownloadUrl)).arrayBuffer());
    expect(got.equals(bytes)).toBe(true);
  });
});
