import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_SKIP_REASON, testPgUrl, useTestDatabase } from '../../testing/pgCluster.js';
import { pattern, readAll, writeBlob } from '../conformance.js';
import { CHUNK } from './pgBlobStore.js';
import { PgStore } from './pgStore.js';

// What the conformance suite's blob cases cannot see from outside: atomic visibility and rows.
describe.skipIf(!testPgUrl)(`PgBlobStore (${testPgUrl ? 'PARTNER_SIM_TEST_PG' : PG_SKIP_REASON})`, () => {
  const db = useTestDatabase();
  let store: PgStore;
  beforeAll(async () => {
    store = await PgStore.open(db.url, { listen: false });
  });
  afterAll(async () => {
    await store?.close();
  });
  const chunkRows = async () => (await db.sql.query('SELECT count(*)::int AS n FROM blob_chunks')).rows[0].n;

  it('shows a blob only once its sink finished, and replacing one leaves no old chunks', async () => {
    const blobs = store.blobStore();
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
    const blobs = store.blobStore();
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
    const blobs = store.blobStore();
    await writeBlob(blobs, 'files/empty', Buffer.alloc(0));
    expect((await readAll(blobs.open('files/empty'))).length).toBe(0);
    await writeBlob(blobs, 'files/ten', pattern(10, 0));
    expect(await readAll(blobs.open('files/ten', { start: 5, end: 100 }))).toEqual(
      pattern(10, 0).subarray(5),
    );
  });
});
