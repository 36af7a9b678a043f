import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { type BlobStore, type ByteRange, checkKey } from '../blobStore.js';
import { inTransaction, type Pool } from './pool.js';

/** Bytes per `blob_chunks` row: large enough that a row costs little, small to stream. */
export const CHUNK = 1024 * 1024;

const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;

/**
 * Blobs as `bytea` rows of CHUNK bytes, so every instance serves every upload without a shared
 * folder. A sink writes its chunks under a fresh blob id (one INSERT per chunk, the stream
 * waiting on each: backpressure) and, once finished, points the key at them in one statement
 * that also drops the chunks the key pointed at before: a reader sees the old blob or the new
 * one, never a half-written one. A reader fetches only the chunks a range covers, one at a
 * time, and only the bytes of them it needs.
 */
export class PgBlobStore implements BlobStore {
  readonly kind = 'postgres';

  constructor(private readonly db: Pool) {}

  path(): undefined {
    return undefined;
  }

  async sink(key: string): Promise<Writable> {
    checkKey(key);
    const blobId = randomUUID();
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let n = 0;
    let size = 0;
    let failed: Error | undefined;
    const inFlight = new Set<Promise<void>>();
    const send = (chunk: Buffer) => {
      const p = this.db
        .query('INSERT INTO blob_chunks (blob_id, n, data) VALUES ($1, $2, $3)', [blobId, n++, chunk])
        .then(
          () => {
            size += chunk.length;
          },
          (e: Error) => {
            failed ??= e;
          },
        )
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    };
    // Full CHUNK-sized rows except the last, so a byte offset names its row by division.
    const cut = (all: boolean) => {
      while (pendingBytes >= CHUNK || (all && pendingBytes > 0)) {
        const whole = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
        const take = Math.min(CHUNK, whole.length);
        send(whole.subarray(0, take));
        const rest = whole.subarray(take);
        pending = rest.length ? [rest] : [];
        pendingBytes = rest.length;
      }
    };
    // Two INSERTs in flight (on two pooled connections): the next chunk travels while the
    // database stores the last one; more would only hold more of the upload in memory.
    const settled = async (max: number) => {
      while (inFlight.size > max) await Promise.race(inFlight);
      if (failed) throw failed;
    };
    let finished = false;
    // After the INSERTs still in flight, so none lands after the delete.
    const discard = () =>
      Promise.allSettled([...inFlight])
        .then(() => this.db.query('DELETE FROM blob_chunks WHERE blob_id = $1', [blobId]))
        .catch(() => {});
    return new Writable({
      highWaterMark: CHUNK,
      write: (chunk: Buffer, _enc, cb) => {
        pending.push(chunk);
        pendingBytes += chunk.length;
        cut(false);
        settled(1).then(() => cb(), cb);
      },
      final: (cb) => {
        cut(true);
        settled(0)
          .then(() => this.publish(key, blobId, size))
          .then(() => cb(), cb);
      },
      destroy: (err, cb) => {
        // Not finished (an aborted upload): its chunks were never visible; drop them.
        if (err || !finished) void discard();
        cb(err);
      },
    }).on('finish', () => {
      finished = true;
    });
  }

  /**
   * Point `key` at the finished chunks of `blobId` and drop what it pointed at before, in one
   * transaction. The advisory lock on the key serializes two sinks finishing the same key at
   * once, so neither's old chunks are missed.
   */
  private async publish(key: string, blobId: string, size: number): Promise<void> {
    await inTransaction(this.db, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
      const old = await c.query<{ blob_id: string }>('SELECT blob_id FROM blobs WHERE key = $1', [key]);
      await c.query(
        `INSERT INTO blobs (key, blob_id, size) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET blob_id = excluded.blob_id, size = excluded.size`,
        [key, blobId, size],
      );
      if (old.rows[0]) await c.query('DELETE FROM blob_chunks WHERE blob_id = $1', [old.rows[0].blob_id]);
    });
  }

  /**
   * Chunks no blob points at, written more than `olderThanMs` ago: sinks of an instance that
   * died mid-upload. (A younger one may be an upload in flight on another instance.)
   */
  async removeUnfinished(olderThanMs: number): Promise<number> {
    const r = await this.db.query(
      `DELETE FROM blob_chunks c WHERE c.written_at < now() - make_interval(secs => $1)
         AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.blob_id = c.blob_id)`,
      [olderThanMs / 1000],
    );
    return r.rowCount ?? 0;
  }

  open(key: string, range?: ByteRange): Readable {
    checkKey(key);
    const db = this.db;
    // The next chunk is fetched while the current one is consumed: one round trip ahead.
    let chunks: AsyncIterator<Buffer> | undefined;
    return new Readable({
      highWaterMark: CHUNK,
      async read() {
        try {
          chunks ??= fetchChunks(db, key, range);
          const next = await chunks.next();
          this.push(next.done ? null : next.value);
        } catch (e) {
          this.destroy(e as Error);
        }
      },
      destroy(err, cb) {
        chunks?.return?.();
        cb(err);
      },
    });
  }

  async delete(key: string): Promise<void> {
    await this.db.query(
      `WITH d AS (DELETE FROM blobs WHERE key = $1 RETURNING blob_id)
       DELETE FROM blob_chunks WHERE blob_id IN (SELECT blob_id FROM d)`,
      [checkKey(key)],
    );
  }

  async deletePrefix(prefix: string): Promise<void> {
    await this.db.query(
      `WITH d AS (DELETE FROM blobs WHERE key LIKE $1 RETURNING blob_id)
       DELETE FROM blob_chunks WHERE blob_id IN (SELECT blob_id FROM d)`,
      [likePrefix(prefix)],
    );
  }

  async keys(): Promise<string[]> {
    return (await this.db.query<{ key: string }>('SELECT key FROM blobs ORDER BY key')).rows.map(
      (r) => r.key,
    );
  }

  async clear(): Promise<void> {
    await this.db.query('TRUNCATE blobs, blob_chunks');
  }
}

/** The slices of the chunks covering `range`, each fetched while the one before is consumed. */
async function* fetchChunks(db: Pool, key: string, range?: ByteRange): AsyncGenerator<Buffer> {
  const r = await db.query<{ blob_id: string; size: string }>(
    'SELECT blob_id, size FROM blobs WHERE key = $1',
    [key],
  );
  const row = r.rows[0];
  if (!row) throw Object.assign(new Error(`no blob ${key}`), { code: 'ENOENT' });
  const start = range?.start ?? 0;
  const end = Math.min(range?.end ?? Number(row.size) - 1, Number(row.size) - 1);
  if (end < start) return;
  const fetch = (n: number) => {
    // substring's offsets are 1-based; on EXTERNAL storage only the TOAST slices needed are read.
    const from = Math.max(start - n * CHUNK, 0);
    const len = Math.min(CHUNK, end - n * CHUNK + 1) - from;
    return db.query<{ d: Buffer }>(
      'SELECT substring(data FROM $3 FOR $4) AS d FROM blob_chunks WHERE blob_id = $1 AND n = $2',
      [row.blob_id, n, from + 1, len],
    );
  };
  const last = Math.floor(end / CHUNK);
  let pending = fetch(Math.floor(start / CHUNK));
  for (let n = Math.floor(start / CHUNK); n <= last; n++) {
    const got = await pending;
    if (n < last) pending = fetch(n + 1);
    const d = got.rows[0]?.d;
    if (!d) throw Object.assign(new Error(`no blob ${key}`), { code: 'ENOENT' });
    yield d;
  }
}
