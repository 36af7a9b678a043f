import { describe, expect, it } from 'vitest';
import { openStore } from '../server/store/openStore.js';
import { freshDatabase, PG_SKIP_REASON, testPgUrl } from '../server/testing/pgCluster.js';
import { cloneRecords } from './seedStore.js';
import { type BenchStore, storeChoice, tempFileStore } from './storeFleet.js';

type Upload = { upload_id: string; client_id: string; n: number };

/** Two uploads and a fault rule stored, 7 + 3 copies made; what the store then holds. */
async function cloneAndRead(at: BenchStore) {
  let store = await openStore(storeChoice(at));
  await store.collection<Upload>('uploads').put('up_a', { upload_id: 'up_a', client_id: 'c1', n: 1 });
  await store.collection<Upload>('uploads').put('up_b', { upload_id: 'up_b', client_id: 'c2', n: 2 });
  await store.mirrored('faults').put('f1', { id: 'f1', match: { client_id: 'other' } });
  await store.close();
  await cloneRecords(at, { uploads: 7, faults: 3 });
  store = await openStore(storeChoice(at));
  try {
    return {
      uploads: await store.collection<Upload>('uploads').list(),
      faults: store.mirrored<{ id: string }>('faults').size,
    };
  } finally {
    await store.close();
  }
}

function expectCopies(r: Awaited<ReturnType<typeof cloneAndRead>>) {
  expect(r.uploads).toHaveLength(9);
  expect(r.faults).toBe(4);
  // Each copy carries its own new id in its id field; the templates' other fields stay.
  const ids = new Set(r.uploads.map((u) => u.upload_id));
  expect(ids.size).toBe(9);
  expect(r.uploads.filter((u) => u.upload_id.startsWith('up_a-c')).every((u) => u.n === 1)).toBe(true);
  expect(r.uploads.filter((u) => u.client_id === 'c2')).toHaveLength(4);
}

describe('cloneRecords', () => {
  it('copies records of the file store under new ids, through the store API', async () => {
    const file = await tempFileStore();
    try {
      expectCopies(await cloneAndRead(file.store));
    } finally {
      await file.drop();
    }
  });

  it.skipIf(!testPgUrl)(`copies rows of PostgreSQL the same way, in SQL (${PG_SKIP_REASON})`, async () => {
    const db = await freshDatabase();
    try {
      expectCopies(await cloneAndRead({ kind: 'postgres', url: db.url }));
    } finally {
      await db.drop();
    }
  });
});
