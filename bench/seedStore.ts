import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { collectionSpec } from '../server/store/collections.js';
import { shardName } from '../server/store/fileStore.js';
import { openStore } from '../server/store/openStore.js';
import { type BenchStore, storeChoice } from './storeFleet.js';

/**
 * `n` records of `col` written straight in the file store's format (store/fileStore.ts), 256
 * files at a time: far faster than through the simulator, and the same bytes.
 */
export async function writeRecords(
  state: string,
  col: string,
  n: number,
  make: (i: number) => [string, object],
) {
  const made = new Set<string>();
  for (let i = 0; i < n; i += 256) {
    const batch: Promise<void>[] = [];
    for (let j = i; j < Math.min(n, i + 256); j++) {
      const [id, value] = make(j);
      const dir = join(state, col, shardName(id));
      if (!made.has(dir)) {
        await mkdir(dir, { recursive: true });
        made.add(dir);
      }
      batch.push(writeFile(join(dir, `${encodeURIComponent(id)}.json`), JSON.stringify(value, null, 2)));
    }
    await Promise.all(batch);
  }
}

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
  else await cloneFiles(store.dataDir, collections);
  return performance.now() - t0;
}

/**
 * The file store: templates read through the store API, copies written straight in its
 * format (writeRecords): 100,000 in seconds, where its own per-record write (temp file +
 * rename) takes 20-35 s on these disks.
 */
async function cloneFiles(dataDir: string, collections: Record<string, number>): Promise<void> {
  const store = await openStore(storeChoice({ kind: 'file', dataDir }));
  const templates: Record<string, Array<[string, Record<string, unknown>]>> = {};
  try {
    for (const col of Object.keys(collections)) {
      const c = collectionSpec(col).mirrored
        ? store.mirrored<Record<string, unknown>>(col)
        : store.collection<Record<string, unknown>>(col);
      templates[col] = await c.page(undefined, 100);
      if (templates[col].length === 0) throw new Error(`nothing stored in ${col} to copy`);
    }
  } finally {
    await store.close();
  }
  for (const [col, count] of Object.entries(collections)) {
    const t = templates[col]!;
    await writeRecords(join(dataDir, 'state'), col, count, (i) => {
      const [id, value] = t[i % t.length]!;
      const copy = `${id}-c${i}`;
      const field = idField(id, value);
      return [copy, field ? { ...value, [field]: copy } : value];
    });
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
