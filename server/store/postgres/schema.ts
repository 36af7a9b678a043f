import { COLLECTIONS, type CollectionSpec } from '../collections.js';
import { type Client, inTransaction, type Pool } from './pool.js';

/**
 * The schema, created and migrated when a store opens. Migrations run in order, each once,
 * inside one transaction that first takes a transaction-scoped advisory lock: N instances
 * starting together queue on it and the later ones find the work done.
 *
 * Records live in ONE table keyed by (collection, id) with `data jsonb`, not a table per
 * collection: collections are declared in code (collections.ts), so a new one needs no
 * migration, and every operation is the same statement with a different key. What a table
 * per collection would give (its own indexes) partial expression indexes give too: one per
 * declared index field, `WHERE collection = '…'`, created from COLLECTIONS at every open.
 */
const MIGRATIONS: readonly string[] = [
  // 1: records, mirror versions with tombstones, the journal, blobs.
  `CREATE TABLE records (
     collection text COLLATE "C" NOT NULL,
     id text COLLATE "C" NOT NULL,
     data jsonb NOT NULL,
     -- Mirrored collections only: the mirror version this row was written at.
     version bigint,
     PRIMARY KEY (collection, id)
   );
   CREATE INDEX records_version ON records (collection, version) WHERE version IS NOT NULL;
   CREATE TABLE mirror_versions (
     collection text COLLATE "C" PRIMARY KEY,
     version bigint NOT NULL DEFAULT 0,
     -- Tombstones below this version are gone: a mirror older than it reloads everything.
     pruned_below bigint NOT NULL DEFAULT 0
   );
   CREATE TABLE tombstones (
     collection text COLLATE "C" NOT NULL,
     id text COLLATE "C" NOT NULL,
     version bigint NOT NULL,
     PRIMARY KEY (collection, id)
   );
   CREATE INDEX tombstones_version ON tombstones (collection, version);
   CREATE TABLE journal (
     seq bigserial PRIMARY KEY,
     ring text COLLATE "C" NOT NULL,
     client_id text COLLATE "C",
     operation text,
     status integer NOT NULL,
     time_ms bigint NOT NULL,
     entry jsonb NOT NULL
   );
   CREATE INDEX journal_ring ON journal (ring, seq);
   CREATE TABLE blobs (
     key text COLLATE "C" PRIMARY KEY,
     blob_id uuid NOT NULL,
     size bigint NOT NULL
   );
   CREATE TABLE blob_chunks (
     blob_id uuid NOT NULL,
     n integer NOT NULL,
     data bytea NOT NULL,
     -- For the sweep of chunks an instance that died mid-upload left behind.
     written_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (blob_id, n)
   );
   CREATE INDEX blobs_blob_id ON blobs (blob_id);
   -- Audio does not compress: store chunks uncompressed, and substring() then reads only
   -- the TOAST slices a byte range needs.
   ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Any constant: the key of the advisory lock every starting instance takes. */
const MIGRATION_LOCK = 0x70617274; // "part"

export async function migrate(pool: Pool): Promise<void> {
  await inTransaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await c.query('CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)');
    const r = await c.query<{ version: number }>('SELECT version FROM schema_version');
    const current = r.rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION)
      throw new Error(
        `the database's schema is version ${current}, newer than this partner-sim knows (${SCHEMA_VERSION}): upgrade partner-sim`,
      );
    for (let v = current; v < SCHEMA_VERSION; v++) await c.query(MIGRATIONS[v]!);
    if (r.rows.length === 0) await c.query('INSERT INTO schema_version VALUES ($1)', [SCHEMA_VERSION]);
    else if (current !== SCHEMA_VERSION)
      await c.query('UPDATE schema_version SET version = $1', [SCHEMA_VERSION]);
    await syncIndexes(c, COLLECTIONS);
    const mirrored = Object.entries(COLLECTIONS as Record<string, CollectionSpec>)
      .filter(([, s]) => s.mirrored)
      .map(([n]) => n);
    await c.query(
      'INSERT INTO mirror_versions (collection) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING',
      [mirrored],
    );
  });
}

/** `owner.client_id` → `data->'owner'->>'client_id'`: the expression indexes and queries share. */
export function fieldExpr(field: string): string {
  const parts = field.split('.');
  for (const p of parts) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(p)) throw new Error(`bad index field ${field}`);
  const path = parts.slice(0, -1).map((p) => `->'${p}'`);
  return `(data${path.join('')}->>'${parts.at(-1)}')`;
}

const indexName = (collection: string, field: string) =>
  `rx_${collection}_${field.replace(/\./g, '__')}`.toLowerCase().slice(0, 63);

/** One partial expression index per declared (collection, field); undeclared ones dropped. */
async function syncIndexes(c: Client, collections: Record<string, CollectionSpec>): Promise<void> {
  const wanted = new Map<string, string>();
  for (const [name, s] of Object.entries(collections))
    for (const f of s.indexes)
      wanted.set(indexName(name, f), `ON records (${fieldExpr(f)}) WHERE collection = '${name}'`);
  const have = await c.query<{ indexname: string }>(
    `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'records' AND indexname LIKE 'rx\\_%'`,
  );
  for (const { indexname } of have.rows)
    if (!wanted.has(indexname)) await c.query(`DROP INDEX "${indexname}"`);
  const present = new Set(have.rows.map((r) => r.indexname));
  for (const [name, def] of wanted) if (!present.has(name)) await c.query(`CREATE INDEX "${name}" ${def}`);
}
