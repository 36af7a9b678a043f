import type { CollectionSpec } from '../collections.js';
import type { Change, Collection } from '../store.js';
import { type Client, inTransaction, type Pool } from './pool.js';
import { fieldExpr } from './schema.js';

type Queryable = Pick<Client, 'query'>;

/** NOTIFY channel of mirror changes: a hint to idle instances, never needed for correctness. */
export const MIRROR_CHANNEL = 'partner_sim_mirrors';

const UPSERT = `INSERT INTO records (collection, id, data, version) VALUES ($1, $2, $3::jsonb, $4)
  ON CONFLICT (collection, id) DO UPDATE SET data = excluded.data, version = excluded.version`;

/** Where a mirrored collection reports its committed writes (mirror.ts). */
export interface MirrorSink<T> {
  apply(id: string, value: T | undefined, version: number): void;
}

/** A creator lost the race for an absent id: the update runs again and sees the winner's row. */
class LostRace extends Error {}

/**
 * One collection in the `records` table. Plain collections write with single autocommit
 * statements. A mirrored one (`mirror` given) writes in a transaction that first locks and
 * bumps its row of `mirror_versions`: that lock serializes the collection's writers, so
 * versions commit in order and a reader that saw version V has seen every change up to V.
 * Deletes leave a tombstone with their version. Locks are always taken version row first,
 * record second, so two writers never wait on each other in opposite order.
 */
export class PgCollection<T> implements Collection<T> {
  private readonly exprs = new Map<string, string>();

  constructor(
    readonly name: string,
    protected readonly db: Pool,
    spec: CollectionSpec,
    protected readonly mirror?: MirrorSink<T>,
  ) {
    for (const f of spec.indexes) this.exprs.set(f, fieldExpr(f));
  }

  /**
   * The condition of an indexed look-up (value `$1`). The collection is a literal, not a
   * parameter: the index is partial (`WHERE collection = '…'`), and a prepared statement's
   * generic plan can only use it when the collection is known at planning time.
   */
  private byIndex(field: string): string {
    const e = this.exprs.get(field);
    if (!e) throw new Error(`${field} is not an index of ${this.name} (store/collections.ts)`);
    return `collection = '${this.name}' AND ${e} = $1`;
  }

  async get(id: string): Promise<T | undefined> {
    const r = await this.db.query('SELECT data FROM records WHERE collection = $1 AND id = $2', [
      this.name,
      id,
    ]);
    return r.rows[0]?.data;
  }

  async findBy(field: string, value: string): Promise<T[]> {
    const r = await this.db.query(`SELECT data FROM records WHERE ${this.byIndex(field)} ORDER BY id`, [
      value,
    ]);
    return r.rows.map((row) => row.data);
  }

  async beyondNewest(field: string, value: string, keep: number, order: string): Promise<string[]> {
    // Newest first past the kept ones: the partial index on `field` finds the app's rows.
    const r = await this.db.query<{ id: string }>(
      `SELECT id FROM records WHERE ${this.byIndex(field)}
       ORDER BY (${fieldExpr(order)})::float8 DESC NULLS LAST, id DESC OFFSET $2`,
      [value, keep],
    );
    return r.rows.map((row) => row.id).reverse();
  }

  async list(): Promise<T[]> {
    const r = await this.db.query('SELECT data FROM records WHERE collection = $1 ORDER BY id', [this.name]);
    return r.rows.map((row) => row.data);
  }

  async count(): Promise<number> {
    const r = await this.db.query('SELECT count(*)::int AS n FROM records WHERE collection = $1', [
      this.name,
    ]);
    return r.rows[0].n;
  }

  async page(after: string | undefined, limit: number): Promise<Array<[string, T]>> {
    const r = await this.db.query(
      'SELECT id, data FROM records WHERE collection = $1 AND id > $2 ORDER BY id LIMIT $3',
      [this.name, after ?? '', limit],
    );
    return r.rows.map((row) => [row.id, row.data]);
  }

  async put(id: string, value: T): Promise<void> {
    if (!this.mirror) {
      await this.db.query(UPSERT, [this.name, id, JSON.stringify(value), null]);
      return;
    }
    const v = await this.versioned(async (c, bump) => {
      const version = await bump();
      await c.query(UPSERT, [this.name, id, JSON.stringify(value), version]);
      return version;
    });
    this.mirror.apply(id, value, v);
  }

  async insert(id: string, value: T): Promise<boolean> {
    const sql = `INSERT INTO records (collection, id, data, version) VALUES ($1, $2, $3::jsonb, $4)
      ON CONFLICT (collection, id) DO NOTHING`;
    if (!this.mirror) {
      const r = await this.db.query(sql, [this.name, id, JSON.stringify(value), null]);
      return r.rowCount === 1;
    }
    const v = await this.versioned(async (c, bump) => {
      if (
        (await c.query('SELECT 1 FROM records WHERE collection = $1 AND id = $2', [this.name, id])).rowCount
      )
        return undefined;
      const version = await bump();
      await c.query(sql, [this.name, id, JSON.stringify(value), version]);
      return version;
    });
    if (v === undefined) return false;
    this.mirror.apply(id, value, v);
    return true;
  }

  async delete(id: string): Promise<boolean> {
    if (!this.mirror) {
      const r = await this.db.query('DELETE FROM records WHERE collection = $1 AND id = $2', [this.name, id]);
      return r.rowCount === 1;
    }
    return (await this.removeWhere('id = $2', id)) > 0;
  }

  async deleteBy(field: string, value: string): Promise<number> {
    return this.removeWhere(this.byIndex(field).replace('$1', '$2'), value);
  }

  private async removeWhere(cond: string, arg: string): Promise<number> {
    const del = `DELETE FROM records WHERE collection = $1 AND ${cond} RETURNING id`;
    // Several rows: locked in whatever order the plan visits them, so two overlapping deleteBys
    // may deadlock; inTransaction runs the loser again.
    if (!this.mirror)
      return inTransaction(this.db, async (c) => (await c.query(del, [this.name, arg])).rowCount ?? 0);
    const gone = await this.versioned(async (c, bump) => {
      const ids = (await c.query<{ id: string }>(del, [this.name, arg])).rows.map((r) => r.id);
      if (ids.length === 0) return { ids, version: 0 };
      const version = await bump();
      await tombstone(c, this.name, ids, version);
      return { ids, version };
    });
    for (const id of gone.ids) this.mirror.apply(id, undefined, gone.version);
    return gone.ids.length;
  }

  async update<R>(id: string, fn: (current: T | undefined) => Change<T, R>): Promise<R> {
    for (;;) {
      try {
        return await this.updateOnce(id, fn);
      } catch (e) {
        if (!(e instanceof LostRace)) throw e;
      }
    }
  }

  private async updateOnce<R>(id: string, fn: (current: T | undefined) => Change<T, R>): Promise<R> {
    let applied: { value: T | undefined; version: number } | undefined;
    const result = await inTransaction(this.db, async (c) => {
      const bump = this.mirror ? await this.lockVersion(c) : async () => null;
      const r = await c.query('SELECT data FROM records WHERE collection = $1 AND id = $2 FOR UPDATE', [
        this.name,
        id,
      ]);
      const exists = r.rowCount === 1;
      const change = fn(r.rows[0]?.data);
      if (change.next === undefined) return change.result;
      if (change.next === null) {
        if (!exists) return change.result;
        await c.query('DELETE FROM records WHERE collection = $1 AND id = $2', [this.name, id]);
        const version = await bump();
        if (version !== null) {
          await tombstone(c, this.name, [id], version);
          applied = { value: undefined, version };
        }
        return change.result;
      }
      const version = await bump();
      const data = JSON.stringify(change.next);
      if (exists) {
        await c.query('UPDATE records SET data = $3::jsonb, version = $4 WHERE collection = $1 AND id = $2', [
          this.name,
          id,
          data,
          version,
        ]);
      } else {
        // Absent row: nothing to lock. A racing creator's INSERT waits on ours (or ours on
        // its); the loser inserts nothing and runs `fn` again on the winner's record.
        const ins = await c.query(
          `INSERT INTO records (collection, id, data, version) VALUES ($1, $2, $3::jsonb, $4)
           ON CONFLICT (collection, id) DO NOTHING`,
          [this.name, id, data, version],
        );
        if (ins.rowCount !== 1) throw new LostRace();
      }
      if (version !== null) applied = { value: change.next, version };
      return change.result;
    });
    if (applied && this.mirror) this.mirror.apply(id, applied.value, applied.version);
    return result;
  }

  /** Run `work` with this collection's version row locked; `bump` takes the next version. */
  private versioned<X>(work: (c: Client, bump: () => Promise<number>) => Promise<X>): Promise<X> {
    return inTransaction(this.db, async (c) => work(c, (await this.lockVersion(c)) as () => Promise<number>));
  }

  private async lockVersion(c: Client): Promise<() => Promise<number>> {
    await c.query('SELECT version FROM mirror_versions WHERE collection = $1 FOR UPDATE', [this.name]);
    return async () => {
      const r = await c.query(
        `UPDATE mirror_versions SET version = version + 1 WHERE collection = $1
         RETURNING version, pg_notify('${MIRROR_CHANNEL}', $1)`,
        [this.name],
      );
      const version = Number(r.rows[0].version);
      // Now and then, tombstones far behind go: a mirror that old reloads its collection.
      if (version % PRUNE_EVERY === 0) await pruneTombstones(c, this.name, version - TOMBSTONE_HORIZON);
      return version;
    };
  }
}

const PRUNE_EVERY = 100;
const TOMBSTONE_HORIZON = 1000;

async function pruneTombstones(c: Queryable, collection: string, below: number): Promise<void> {
  if (below <= 0) return;
  await c.query('DELETE FROM tombstones WHERE collection = $1 AND version < $2', [collection, below]);
  await c.query(
    'UPDATE mirror_versions SET pruned_below = greatest(pruned_below, $2) WHERE collection = $1',
    [collection, below],
  );
}

async function tombstone(c: Queryable, collection: string, ids: string[], version: number): Promise<void> {
  await c.query(
    `INSERT INTO tombstones (collection, id, version) SELECT $1, unnest($2::text[]), $3
     ON CONFLICT (collection, id) DO UPDATE SET version = excluded.version`,
    [collection, ids, version],
  );
}
