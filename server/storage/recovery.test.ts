import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { completeUpload, putPart, startUpload } from '../client/steps.js';
import { uploadAll } from '../client/upload.js';
import { shardName } from '../store/fileStore.js';
import { DEMO_US, http, userToken } from '../testing/http.js';
import { useTestServers } from '../testing/useTestServers.js';
import { recoverStorage } from './recovery.js';

const servers = useTestServers();

async function blobFiles(dir: string): Promise<string[]> {
  const root = join(dir, 'blobs');
  return (await readdir(root, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort();
}

/** A record's file in the data folder's file store. */
const recordFile = (dir: string, col: string, id: string) =>
  join(dir, 'state', col, shardName(id), `${encodeURIComponent(id)}.json`);

describe('recovery of storage after a crash', () => {
  it('removes blobs no record names (PUTs a crash cut short) once listening, and keeps every used one', async () => {
    const dir = await servers.tempDir();
    const a = await servers.start({ inMemory: false, dataDir: dir, chunkSize: 4 });
    const { user } = await userToken(a.api, DEMO_US);
    const file = await uploadAll(a.api, user, 6, (_p, n) => new Uint8Array(n).fill(7));
    const open = await startUpload(a.api, user, 8);
    expect((await putPart(open.Parts[0]!.PresignedUrl, new Uint8Array([1, 2, 3, 4]))).status).toBe(200);
    await a.stop();
    const kept = await blobFiles(dir);
    expect(kept).toHaveLength(3);

    // What a SIGKILL during PUTs leaves: a half-written part of a live session, and a part
    // of a session whose records are gone.
    const live = join(dir, 'blobs', 'uploads', open.UploadId);
    await writeFile(join(live, '2-cut0ff'), 'ha');
    await mkdir(join(dir, 'blobs', 'uploads', 'u_gone'), { recursive: true });
    await writeFile(join(dir, 'blobs', 'uploads', 'u_gone', '1-abcdef'), 'lost');

    const b = await servers.start({ inMemory: false, dataDir: dir, chunkSize: 4 });
    // Start-up did not read every stored record to find them: that comes after listening.
    expect(await blobFiles(dir)).toContain('uploads/u_gone/1-abcdef');
    expect(await b.recovery.done()).toEqual({ ghosts: 0, parts: 0, blobs: 2 });
    expect(await blobFiles(dir)).toEqual(kept);
    expect(await readdir(join(dir, 'blobs', 'uploads'))).not.toContain('u_gone');
    const got = await fetch(file.DownloadUrl.replace(a.url, b.url));
    expect(Buffer.from(await got.arrayBuffer())).toEqual(Buffer.alloc(6, 7));
  });

  it('finishes a completion a crash cut after its commit point: the session goes, the file stays', async () => {
    const dir = await servers.tempDir();
    const opts = { inMemory: false, dataDir: dir, chunkSize: 4 };
    const a = await servers.start(opts);
    const { user } = await userToken(a.api, DEMO_US);
    const s = await startUpload(a.api, user, 6);
    const etags = [];
    for (const [i, p] of s.Parts.entries())
      etags.push((await putPart(p.PresignedUrl, Buffer.from(i === 0 ? 'abcd' : 'ef'))).etag!);
    await a.stop();
    // The session's records as they were before completion...
    const session = recordFile(dir, 'uploads', s.UploadId);
    const parts = [1, 2].map((n) => recordFile(dir, 'uploadParts', `${s.UploadId}:${n}`));
    const before = await Promise.all([session, ...parts].map((f) => readFile(f, 'utf8')));

    const b = await servers.start(opts);
    const part_list = etags.map((ETag, i) => ({ PartNumber: i + 1, ETag }));
    const body = { file_id: s.FileId, upload_id: s.UploadId, part_list };
    const done = await completeUpload(b.api, user, body);
    expect(done.status, done.text).toBe(200);
    await b.stop();
    // ...back on disk next to the file record: a kill between completion's two writes.
    for (const [i, f] of [session, ...parts].entries()) await writeFile(f, before[i]!);

    const c = await servers.start(opts);
    const listed = async () =>
      ((await http('GET', `${c.admin}/uploads`)).body as { uploads: { upload_id: string }[] }).uploads.map(
        (u) => u.upload_id,
      );
    expect(await listed()).toEqual([s.UploadId]);
    expect(await c.recovery.done()).toEqual({ ghosts: 1, parts: 0, blobs: 0 });
    expect(await listed()).toEqual([]);
    const file = (done.body as { DownloadUrl: string }).DownloadUrl.replace(b.url, c.url);
    expect(await (await fetch(file)).text()).toBe('abcdef');
    const again = await completeUpload(c.api, user, body);
    expect([again.status, (again.body as { detail: string }).detail]).toEqual([404, 'NoSuchUpload']);
    expect(await blobFiles(dir)).toHaveLength(2);
  });

  it('walks in pages while PUTs go on: a part in flight keeps its blob, a stale part record goes', async () => {
    const dir = await servers.tempDir();
    const sim = await servers.start({ inMemory: false, dataDir: dir, chunkSize: 4 });
    const { user } = await userToken(sim.api, DEMO_US);
    const files = [];
    for (let i = 0; i < 5; i++)
      files.push(await uploadAll(sim.api, user, 6, (_p, n) => new Uint8Array(n).fill(i)));
    const open = await startUpload(sim.api, user, 8);
    // A part record whose session is gone (a removal cut half-way).
    const storage = sim.services.storage;
    await storage.parts.put('u_gone:1', {
      upload_id: 'u_gone',
      client_id: DEMO_US.client_id,
      part_number: 1,
      size: 1,
      md5: '0'.repeat(32),
      blob: 'uploads/u_gone/1-aaaaaa',
      stored_ms: 0,
    });
    // A PUT whose bytes are still on their way while the walk runs.
    const body = new Readable({ read() {} });
    const push = (b: Buffer | null) => body.push(b);
    const put = fetch(open.Parts[0]!.PresignedUrl, {
      method: 'PUT',
      body: Readable.toWeb(body) as ReadableStream,
      headers: { 'content-length': '4' },
      duplex: 'half',
    } as RequestInit);
    push(Buffer.from('ab'));
    for (let i = 0; i < 100 && storage.writing.size === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(storage.writing.size).toBe(1);
    expect(await recoverStorage(storage, { pageSize: 2 })).toEqual({ ghosts: 0, parts: 1, blobs: 0 });
    push(Buffer.from('cd'));
    push(null);
    expect((await put).status).toBe(200);
    for (const [i, f] of files.entries())
      expect(Buffer.from(await (await fetch(f.DownloadUrl)).arrayBuffer())).toEqual(Buffer.alloc(6, i));
    expect(await blobFiles(dir)).toHaveLength(5 * 2 + 1);
  });
});
