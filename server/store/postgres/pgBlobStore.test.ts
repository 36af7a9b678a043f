import { describe, expect, it } from 'vitest';
import { PG_SKIP_REASON, testPgUrl, useTestStore } from '../../testing/pgCluster.js';
import { pattern, readAll, writeBlob } from '../../testing/storeFixtures.js';
import { CHUNK } from './pgBlobStore.js';

// What the conformance suite's blob cases cannot see from outside: atomic visibility and rows.
describe.skipIf(!testPgUrl)(`PgBlobStore (${testPgUrl ? 'PARTNER_SIM_TEST_PG' : PG_SKIP_REASON})`, () => {
  const db = useTestStore();
  const chunkRows = async () => (await db.sql.query('SELECT count(*)::int AS n FROM blob_chunks')).rows[0].n;

  it('shows a blob only once its sink finished, and replacing one leaves no old chunks', async () => {
    const blobs = db.store.blobStore();
    await blobs.clear();
    const sink = await blobs.sink('files/file_late');
    await new Promise<void>((resolve, reject) =>
      sink.write(pattern(CHUNK + 10, 1), (e) => (e ? reject(e) : resolve())),
    );
    expect(await blobs.keys()).not.toContain('files/file_late');
    await new Promise<void>((resolve) => sink.end(resolve));
    expect(await blobs.keys()).toContain('files/file_late');
    expect(await chunkRows()).toBe(2);
    await writeBlob(blobs, 'files/file_late', Buffer.from('short'));
    expect(await chunkRows()).toBe(1);
    expect((await readAll(blobs.open('files/file_late'))).toString()).toBe('short');
  });

  it('drops the chunks of a sink destroyed before it finished', async () => {
    const blobs = db.store.blobStore();
    await blobs.clear();
    const sink = await blobs.sink('uploads/u_x/1-a');
    await new Promise<void>((resolve, reject) =>
      sink.write(pattern(3 * CHUNK, 2), (e) => (e ? reject(e) : resolve())),
    );
    sink.on('error', () => {});
    sink.destroy(new Error('client went away'));
    await expect.poll(chunkRows).toBe(0);
    expect(await blobs.keys()).toEqual([]);
  });

  it('reads an empty blob and a range past its end as what exists', async () => {
    const blobs = db.store.blobStore();
    await writeBlob(blobs, 'files/empty', Buffer.alloc(0));
    expect((await readAll(blobs.open('files/empty'))).length).toBe(0);
    await writeBlob(blobs, 'files/ten', pattern(10, 0));
    expect(await readAll(blobs.open('files/ten', { start: 5, end: 100 }))).toEqual(
      pattern(10, 0).subarray(5),
    );
  });

  it('keeps one blob per key when two sinks finish it at once', async () => {
    const blobs = db.store.blobStore();
    await blobs.clear();
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => writeBlob(blobs, 'files/race', pattern(CHUNK + 5, i))),
    );
    expect(await chunkRows()).toBe(2);
    expect((await readAll(blobs.open('files/race'))).length).toBe(CHUNK + 5);
  });

  it('sweeps chunks no blob points at once they are old enough, never a younger one', async () => {
    const blobs = db.store.blobStore();
    await blobs.clear();
    await writeBlob(blobs, 'files/kept', Buffer.from('kept'));
    await db.sql.query(
      "INSERT INTO blob_chunks (blob_id, n, data, written_at) VALUES (gen_random_uuid(), 0, 'x', now() - interval '2 hours'), (gen_random_uuid(), 0, 'y', now())",
    );
    expect(await blobs.removeUnfinished(3_600_000)).toBe(1);
    expect(await chunkRows()).toBe(2);
    expect((await readAll(blobs.open('files/kept'))).toString()).toBe('kept');
  });
});
