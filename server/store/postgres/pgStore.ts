import { COLLECTIONS, type CollectionSpec, collectionSpec } from '../collections.js';
import {
  assertCollectionName,
  type Collection,
  type JournalLog,
  type MirroredCollection,
  type Store,
} from '../store.js';
import { Mirror, PgMirroredCollection } from './mirror.js';
import { PgBlobStore } from './pgBlobStore.js';
import { MIRROR_CHANNEL, PgCollection } from './pgCollection.js';
import { PgJournal } from './pgJournal.js';
import { inTransaction, openPool, type Pool } from './pool.js';
import { migrate } from './schema.js';
import { MirrorSync } from './sync.js';
import { redactUrl } from './url.js';

/**
 * All state in one PostgreSQL database, shared by every instance that opens it (`--store
 * postgres://…`). Records in `records` (schema.ts), mirrored collections kept in memory and
 * brought up to date by `sync()` (sync.ts), the journal and the blobs in their own tables.
 * Opening creates or migrates the schema and loads every mirror.
 */
export class PgStore implements Store {
  readonly kind = 'postgres';
  readonly shared = true;
  readonly location: string;
  private readonly collections = new Map<string, PgCollection<unknown>>();
  private readonly mirrors = new Map<string, Mirror<unknown>>();
  private readonly syncer: MirrorSync;
  private blobs: PgBlobStore | undefined;

  private constructor(
    readonly db: Pool,
    url: string,
  ) {
    this.location = redactUrl(url);
    this.syncer = new MirrorSync(db, url, this.mirrors);
  }

  static async open(url: string, opts: { listen?: boolean } = {}): Promise<PgStore> {
    const db = await openPool(url);
    try {
      await migrate(db);
      const store = new PgStore(db, url);
      for (const [name, s] of Object.entries(COLLECTIONS as Record<string, CollectionSpec>))
        if (s.mirrored) store.mirrored(name);
      await store.syncer.sync();
      if (opts.listen !== false) await store.syncer.listen();
      return store;
    } catch (e) {
      await db.end().catch(() => {});
      throw e;
    }
  }

  collection<T>(name: string): Collection<T> {
    let c = this.collections.get(name);
    if (!c) {
      assertCollectionName(name);
      const spec = collectionSpec(name);
      if (spec.mirrored) return this.mirrored<T>(name);
      c = new PgCollection(name, this.db, spec);
      this.collections.set(name, c);
    }
    return c as PgCollection<T>;
  }

  mirrored<T>(name: string): MirroredCollection<T> {
    let c = this.collections.get(name);
    if (!c) {
      assertCollectionName(name);
      const spec = collectionSpec(name);
      if (!spec.mirrored)
        throw new Error(`collection ${name} is not declared mirrored (store/collections.ts)`);
      const m = new Mirror<unknown>();
      this.mirrors.set(name, m);
      c = new PgMirroredCollection(name, this.db, spec, m);
      this.collections.set(name, c);
    }
    return c as unknown as MirroredCollection<T>;
  }

  journal(capacity: number): JournalLog {
    return new PgJournal(this.db, capacity);
  }

  /** The blobs of this database, on the same pool. */
  blobStore(): PgBlobStore {
    this.blobs ??= new PgBlobStore(this.db);
    return this.blobs;
  }

  sync(): Promise<void> {
    return this.syncer.sync();
  }

  /**
   * Every record, tombstone and journal entry gone; every mirror version bumped past a new
   * prune horizon, so every instance (this one at once) reloads its now empty mirrors.
   */
  async clear(): Promise<void> {
    const versions = await inTransaction(this.db, async (c) => {
      const r = await c.query<{ collection: string; version: string }>(
        `UPDATE mirror_versions SET version = version + 1, pruned_below = version + 1
         RETURNING collection, version, pg_notify('${MIRROR_CHANNEL}', collection)`,
      );
      await c.query('TRUNCATE records, tombstones, journal');
      return r.rows;
    });
    for (const { collection, version } of versions)
      this.mirrors.get(collection)?.replace([], Number(version));
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {
    await this.syncer.close();
    await this.db.end();
  }
}
