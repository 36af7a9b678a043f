import pg from 'pg';
import { collectionSpec } from '../server/store/collections.js';
import { openStore } from '../server/store/openStore.js';
import { type BenchStore, storeChoice } from './storeFleet.js';

const BATCH = 500;

/** The top-level field of a record that carries its own id (`upload_id`, `id`…), if any. */
const idField = (id: string, value: Record<string, unknown>): string | undefined =>
  Object.keys(value).find((k) => value[k] === id);

/** How many copies template `k` of `n` makes so that `count` copies are made in all. */
const share = (count: number, n: number, k: number) => Math.floor(count / n) + (k < count % n ? 1 : 0);

/**
 * `count` more records in each of `collections` of a stored state that the simulator made and
 * then let go of (no instance may run on it meanwhile): copies of the records it holds there,
 * each under a new id (written into the record wherever it carried its old one). The records
 * keep the simulator's own shape; seconds instead of the minutes the API would take.
 * Resolves to how long the copying took, ms.
 */
export async function cloneRecords(store: BenchStore, collections: Record<string, number>): Promise<number> {
  const t0 = performance.now();
  if (store.kind === 'postgres') await cloneRows(store.url, collections);
  else await cloneThroughStore(store, collections);
  return performance.now() - t0;
}

/** Through the store API, BATCH writes at a time: the file store's own per-record write. */
async function cloneThroughStore(at: BenchStore, collections: Record<string, number>): Promise<void> {
  const store = await openStore(storeChoice(at));
  try {
    for (const [col, count] of Object.entries(collections)) {
      const c = collectionSpec(col).mirrored
        ? store.mirrored<Record<string, unknown>>(col)
        : store.collection<Record<string, unknown>>(col);
      const templates = await c.page(undefined, 100);
      if (templates.length === 0) throw new Error(`nothing stored in ${col} to copy`);
      for (let i = 0; i < count; i += BATCH)
        await Promise.all(
          Array.from({ length: Math.min(BATCH, count - i) }, (_, k) => {
            const [id, value] = templates[(i + k) % templates.length]!;
            const copy = `${id}-c${i + k}`;
            const field = idField(id, value);
            return c.put(copy, field ? { ...value, [field]: copy } : value);
          }),
        );
    }
    await store.flush();
  } finally {
    await store.close();
  }
}

/**
 * In SQL, one INSERT … SELECT per template row: 100,000 rows in well under a second, where
 * one store `put` each takes a quarter of a minute. It knows the store's `records` table
 * (server/store/postgres/schema.ts); copies keep the template's mirror version, which is
 * right because every instance opening the store loads a mirrored collection whole.
 */
async function cloneRows(url: string, collections: Record<string, number>): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    for (const [col, count] of Object.entries(collections)) {
      const r = await db.query<{ id: string; data: Record<string, unknown> }>(
        'SELECT id, data FROM records WHERE collection = $1 ORDER BY id LIMIT 100',
        [col],
      );
      if (r.rows.length === 0) throw new Error(`nothing stored in ${col} to copy`);
      for (const [k, row] of r.rows.entries())
        await db.query(
          `INSERT INTO records (collection, id, data, version)
           SELECT collection, $2 || '-c' || g,
             CASE WHEN $3::text IS NULL THEN data ELSE jsonb_set(data, ARRAY[$3::text], to_jsonb($2 || '-c' || g)) END,
             version
           FROM records, generate_series(1, $4::int) g WHERE collection = $1 AND id = $2`,
          [col, row.id, idField(row.id, row.data) ?? null, share(count, r.rows.length, k)],
        );
    }
  } finally {
    await db.end();
  }
}
