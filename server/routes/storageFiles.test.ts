import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { completeUpload, md5hex, putPart, startUpload } from '../client/steps.js';
import { uploadAll } from '../client/upload.js';
import type { Config } from '../config.js';
import { partKey } from '../storage/records.js';
import { DEMO_US, http, userToken } from '../testing/http.js';
import type { TestServer } from '../testing/testServer.js';
import { useTestServers } from '../testing/useTestServers.js';

const servers = useTestServers();

async function start(overrides: Partial<Config> = {}) {
  const sim = await servers.start({ chunkSize: 1024, ...overrides });
  return { sim, token: (await userToken(sim.api, DEMO_US)).user };
}

const s3Code = (xml: string): string | undefined => /<Code>([^<]+)<\/Code>/.exec(xml)?.[1];
const advance = (sim: TestServer, ms: number) =>
  http('POST', `${sim.admin}/clock`, { json: { advance_ms: ms } });
const slice = (b: Buffer, chunk: number) => (n: number, len: number) =>
  b.subarray((n - 1) * chunk, (n - 1) * chunk + len);

describe('DownloadUrl', () => {
  it('serves Ogg Opus as audio/ogg (RFC 7845), whatever Content-Type the part PUT sent', async () => {
    const { sim, token } = await start();
    const bytes = randomBytes(100);
    const s = await startUpload(sim.api, token, bytes.length, 'opus');
    // The URL is signed for the host only: S3 stores the bytes whatever type is sent.
    const put = await putPart(s.Parts[0]!.PresignedUrl, bytes, { 'content-type': 'audio/ogg' });
    expect(put.status).toBe(200);
    const done = await completeUpload(sim.api, token, {
      file_id: s.FileId,
      upload_id: s.UploadId,
      part_list: [{ PartNumber: 1, ETag: put.etag! }],
      file_md5: md5hex(bytes),
      filetype: 'opus',
    });
    expect(done.status).toBe(200);
    const got = await fetch((done.body as { DownloadUrl: string }).DownloadUrl);
    expect(got.headers.get('content-type')).toBe('audio/ogg');
  });

  it('has the multipart ETag of the S3 test vector (3 × 5242881 bytes of "a")', async () => {
    const chunk = 5242881;
    const { sim, token } = await start({ chunkSize: chunk });
    const part = Buffer.alloc(chunk, 'a');
    const done = await uploadAll(sim.api, token, 3 * chunk, () => part, { concurrency: 3 });
    const head = await fetch(done.DownloadUrl, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe('"c7cb0938a47e31f70cf07028d22e6913-3"');
    expect(head.headers.get('content-length')).toBe(String(3 * chunk));
  });

  it('serves the exact bytes, ranges (206) and 416 for an unsatisfiable range', async () => {
    const { sim, token } = await start();
    const bytes = randomBytes(5000);
    const done = await uploadAll(sim.api, token, bytes.length, slice(bytes, 1024));
    expect(done.FileMd5).toBe(md5hex(bytes));
    const whole = await fetch(done.DownloadUrl);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/mpeg');
    // Without its query the URL is an anonymous request: S3's 403 AccessDenied, not a 400.
    const anonymous = await fetch(done.DownloadUrl.split('?')[0]!);
    expect(anonymous.status).toBe(403);
    expect(await anonymous.text()).toContain('<Code>AccessDenied</Code>');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('content-length')).toBe('5000');
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);

    for (const [range, start, end] of [
      ['bytes=100-1999', 100, 1999],
      ['bytes=4990-', 4990, 4999],
      ['bytes=-10', 4990, 4999],
      ['bytes=4000-9999', 4000, 4999],
    ] as const) {
      const r = await fetch(done.DownloadUrl, { headers: { range } });
      expect(r.status, range).toBe(206);
      expect(r.headers.get('content-range')).toBe(`bytes ${start}-${end}/5000`);
      expect(Buffer.from(await r.arrayBuffer()).equals(bytes.subarray(start, end + 1))).toBe(true);
    }
    const bad = await fetch(done.DownloadUrl, { headers: { range: 'bytes=5000-' } });
    expect([bad.status, s3Code(await bad.text())]).toEqual([416, 'InvalidRange']);
    expect(bad.headers.get('content-range')).toBe('bytes */5000');
  });

  it('expires after 24 hours and refuses tampering', async () => {
    const { sim, token } = await start();
    const done = await uploadAll(sim.api, token, 10, () => Buffer.from('0123456789'));
    const tampered = new URL(done.DownloadUrl);
    tampered.searchParams.set('X-Amz-Expires', '86399');
    const t = await fetch(tampered);
    expect([t.status, s3Code(await t.text())]).toEqual([403, 'SignatureDoesNotMatch']);
    await advance(sim, 86_400_000 - 60_000);
    expect((await fetch(done.DownloadUrl)).status).toBe(200);
    await advance(sim, 120_000);
    const r = await fetch(done.DownloadUrl);
    const body = await r.text();
    expect([r.status, s3Code(body)]).toEqual([403, 'AccessDenied']);
    expect(body).toContain('Request has expired');
  });

  it('resolves through the FileSource for the transcription service', async () => {
    const { sim, token } = await start();
    const done = await uploadAll(sim.api, token, 10, () => Buffer.from('0123456789'));
    const storage = sim.services.storage;
    const found = await storage.lookup(done.DownloadUrl);
    expect(found?.status).toBe('found');
    if (found?.status !== 'found') return;
    expect(found.file).toMatchObject({ file_id: done.FileId, client_id: DEMO_US.client_id, size: 10 });
    expect(await text(found.open())).toBe('0123456789');
    expect(await storage.lookup('https://example.com/audio.mp3')).toBeUndefined();
    expect(
      (await storage.lookup(done.DownloadUrl.replace('X-Amz-Expires=', 'X-Amz-Expires=1')))?.status,
    ).toBe('invalid');
    const gone = new URL(done.DownloadUrl);
    gone.pathname = gone.pathname.replace(done.FileId, 'f_missing');
    const qs = storage.presigner.sign('GET', '/files/f_missing', {}, sim.services.deps.clock.now(), 60);
    expect((await storage.lookup(`${gone.origin}${gone.pathname}?${qs}`))?.status).toBe('missing');
    await advance(sim, 86_401_000);
    expect((await storage.lookup(done.DownloadUrl))?.status).toBe('expired');
  });
});

describe('quirk switch etag_quotes', () => {
  it('strip: the part ETag header comes without quotes', async () => {
    const { sim } = await start();
    const app = { client_id: 'strip-app', secret_key: 'strip-secret' };
    await http('POST', `${sim.admin}/apps`, { json: { ...app, etag_quotes: 'strip' } });
    const { user } = await userToken(sim.api, app);
    const s = await startUpload(sim.api, user, 3);
    const r = await putPart(s.Parts[0]!.PresignedUrl, Buffer.from('abc'));
    expect(r.etag).toBe(md5hex(Buffer.from('abc')));
  });
});

describe('state and housekeeping', () => {
  it('keeps sessions and parts across a restart between PUTs and completion', async () => {
    const dir = await servers.tempDir();
    const bytes = randomBytes(3000);
    const a = await start({ inMemory: false, dataDir: dir });
    const s = await startUpload(a.sim.api, a.token, bytes.length);
    const first = await putPart(s.Parts[0]!.PresignedUrl, bytes.subarray(0, 1024));
    await a.sim.stop();

    const b = await start({ inMemory: false, dataDir: dir });
    const rest = await Promise.all(
      // Signatures do not cover the host: the URLs work on the new port.
      s.Parts.slice(1).map((p) =>
        putPart(
          p.PresignedUrl.replace(a.sim.url, b.sim.url),
          bytes.subarray((p.PartNumber - 1) * 1024, p.PartNumber * 1024),
        ),
      ),
    );
    const part_list = [first, ...rest].map((r, i) => ({ PartNumber: i + 1, ETag: r.etag! }));
    const done = await completeUpload(b.sim.api, b.token, {
      file_id: s.FileId,
      upload_id: s.UploadId,
      part_list,
    });
    expect(done.status).toBe(200);
    await b.sim.stop();

    const c = await start({ inMemory: false, dataDir: dir });
    const got = Buffer.from(
      await (await fetch(done.body.DownloadUrl.replace(b.sim.url, c.sim.url))).arrayBuffer(),
    );
    expect(got.equals(bytes)).toBe(true);
    expect((await c.sim.services.storage.files.get(s.FileId))?.size).toBe(3000);
    const ranged = await fetch(done.body.DownloadUrl.replace(b.sim.url, c.sim.url), {
      headers: { range: 'bytes=1000-2100' },
    });
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(1000, 2101))).toBe(true);
  });

  it('a session left behind by a crash during completion takes no writes, and its sweep keeps the file', async () => {
    const dir = await servers.tempDir();
    const bytes = randomBytes(2000);
    const a = await start({ inMemory: false, dataDir: dir, uploadTtlS: 7200 });
    const s = await startUpload(a.sim.api, a.token, bytes.length);
    const part_list = [];
    for (const p of s.Parts) {
      const r = await putPart(
        p.PresignedUrl,
        slice(bytes, 1024)(p.PartNumber, p.PartNumber === 1 ? 1024 : 976),
      );
      part_list.push({ PartNumber: p.PartNumber, ETag: r.etag! });
    }
    const { storage } = a.sim.services;
    const session = (await storage.uploads.get(s.UploadId))!;
    const parts = await Promise.all(
      s.Parts.map(async (p) => (await storage.parts.get(partKey(s.UploadId, p.PartNumber)))!),
    );
    const done = await completeUpload(a.sim.api, a.token, {
      file_id: s.FileId,
      upload_id: s.UploadId,
      part_list,
    });
    expect(done.status).toBe(200);
    // The file record is written; a crash before the session's records went leaves them all.
    await storage.uploads.put(session.upload_id, session);
    for (const p of parts) await storage.parts.put(partKey(p.upload_id, p.part_number), p);
    await a.sim.stop();

    const b = await start({ inMemory: false, dataDir: dir, uploadTtlS: 7200 });
    const url = (u: string) => u.replace(a.sim.url, b.sim.url);
    const put = await putPart(url(s.Parts[0]!.PresignedUrl), randomBytes(1024));
    expect([put.status, s3Code(put.text)]).toEqual([404, 'NoSuchUpload']);
    await advance(b.sim, 7201_000);
    await b.sim.housekeeper.tick();
    expect(await b.sim.services.storage.uploads.get(s.UploadId)).toBeUndefined();
    const got = await fetch(url(done.body.DownloadUrl));
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('removes abandoned sessions and their bytes after --upload-ttl', async () => {
    const dir = await servers.tempDir();
    const { sim, token } = await start({ inMemory: false, dataDir: dir, uploadTtlS: 7200 });
    await sim.housekeeper.stop(); // its timer would race the checks below; ticks come by hand
    const kept = await uploadAll(sim.api, token, 2000, (_n, len) => randomBytes(len));
    const old = await startUpload(sim.api, token, 2000);
    const part = await putPart(old.Parts[0]!.PresignedUrl, randomBytes(1024));
    const keptDir = (await sim.services.storage.files.get(kept.FileId))!.upload_id;
    expect((await readdir(join(dir, 'blobs', 'uploads'))).sort()).toEqual([keptDir, old.UploadId].sort());
    await advance(sim, 7201_000);
    const done = await completeUpload(sim.api, token, {
      file_id: old.FileId,
      upload_id: old.UploadId,
      part_list: [{ PartNumber: 1, ETag: part.etag! }],
    });
    expect([done.status, done.body.detail]).toEqual([404, 'NoSuchUpload']);
    // Client requests never sweep: the background housekeeper does.
    expect(await sim.services.storage.uploads.get(old.UploadId)).toBeDefined();
    await startUpload(sim.api, token, 10);
    expect(await sim.services.storage.uploads.get(old.UploadId)).toBeDefined();
    expect(await sim.housekeeper.tick()).toBe(1);
    expect(await sim.services.storage.uploads.get(old.UploadId)).toBeUndefined();
    expect(await readdir(join(dir, 'blobs', 'uploads'))).toEqual([keptDir]);
    expect((await fetch(kept.DownloadUrl)).status).toBe(200);
  });

  it("a per-app reset removes that app's uploads and files only", async () => {
    const { sim, token } = await start();
    const mine = await uploadAll(sim.api, token, 10, () => Buffer.from('0123456789'));
    const pending = await startUpload(sim.api, token, 10);
    const other = (
      await userToken(sim.api, { client_id: 'other-partner-us', secret_key: 'other-secret-us-0000' })
    ).user;
    const theirs = await uploadAll(sim.api, other, 10, () => Buffer.from('abcdefghij'));
    const reset = await http('POST', `${sim.admin}/reset`, { json: { client_id: DEMO_US.client_id } });
    expect(reset.status).toBe(204);
    const r = await fetch(mine.DownloadUrl);
    expect([r.status, s3Code(await r.text())]).toEqual([404, 'NoSuchKey']);
    const put = await putPart(pending.Parts[0]!.PresignedUrl, Buffer.from('0123456789'));
    expect([put.status, s3Code(put.text)]).toEqual([404, 'NoSuchUpload']);
    expect((await fetch(theirs.DownloadUrl)).status).toBe(200);
  });
});
