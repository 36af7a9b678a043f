import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { putPart, startUpload } from '../client/steps.js';
import { uploadAll } from '../client/upload.js';
import { DEMO_US, userToken } from '../testing/http.js';
import { useTestServers } from '../testing/useTestServers.js';

const servers = useTestServers();

async function blobFiles(dir: string): Promise<string[]> {
  const root = join(dir, 'blobs');
  return (await readdir(root, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort();
}

describe('start-up recovery of storage', () => {
  it('removes blobs no record names (PUTs a crash cut short) and keeps every used one', async () => {
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
    expect(await blobFiles(dir)).toEqual(kept);
    expect(await readdir(join(dir, 'blobs', 'uploads'))).not.toContain('u_gone');
    const got = await fetch(file.DownloadUrl.replace(a.url, b.url));
    expect(Buffer.from(await got.arrayBuffer())).toEqual(Buffer.alloc(6, 7));
  });
});
