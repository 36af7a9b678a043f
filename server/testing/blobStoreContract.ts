import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../store/blobStore.js';
import { pattern, readAll, writeBlob } from './storeFixtures.js';

const MiB = 1024 * 1024;

/** What every BlobStore does: whole and ranged reads, replacement, prefixes, large streams. */
export function blobCases(blobsOf: () => BlobStore): void {
  describe('blob store', () => {
    it('round-trips blobs whole and by byte range; keys, delete, deletePrefix, clear', async () => {
      const blobs = blobsOf();
      await blobs.clear();
      const data = pattern(2.5 * MiB, 7);
      await writeBlob(blobs, 'uploads/u_1/1-a', data, 100_000);
      await writeBlob(blobs, 'uploads/u_1/2-b', Buffer.from('hello'));
      await writeBlob(blobs, 'files/file_1', Buffer.from('file'));
      expect((await readAll(blobs.open('uploads/u_1/1-a'))).equals(data)).toBe(true);
      for (const [start, end] of [
        [0, 0],
        [10, 99],
        [MiB - 3, MiB + 2],
        [MiB, 2 * MiB - 1],
        [100, 2.5 * MiB - 1],
      ] as const)
        expect(
          (await readAll(blobs.open('uploads/u_1/1-a', { start, end }))).equals(
            data.subarray(start, end + 1),
          ),
        ).toBe(true);
      expect((await blobs.keys()).sort()).toEqual(['files/file_1', 'uploads/u_1/1-a', 'uploads/u_1/2-b']);
      await writeBlob(blobs, 'files/file_1', Buffer.from('replaced'));
      expect((await readAll(blobs.open('files/file_1'))).toString()).toBe('replaced');
      await blobs.deletePrefix('uploads/u_1');
      expect(await blobs.keys()).toEqual(['files/file_1']);
      await blobs.delete('files/file_1');
      await expect(readAll(blobs.open('files/file_1'))).rejects.toMatchObject({ code: 'ENOENT' });
      await writeBlob(blobs, 'files/file_2', Buffer.from('x'));
      await blobs.clear();
      expect(await blobs.keys()).toEqual([]);
    });

    it('streams a 20 MiB blob in and out', async () => {
      const blobs = blobsOf();
      const data = pattern(20 * MiB, 3);
      await writeBlob(blobs, 'files/file_big', data, 256 * 1024);
      const hash = createHash('sha256');
      let n = 0;
      for await (const c of blobs.open('files/file_big')) {
        hash.update(c as Buffer);
        n += (c as Buffer).length;
      }
      expect(n).toBe(data.length);
      expect(hash.digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
    }, 60_000);
  });
}
