import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { type BlobStore, type ByteRange, checkKey } from '../../storage/blobStore.js';
import type { Pool } from './pool.js';

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
    const writeChunk = async (chunk: Buffer) => {
      await this.db.query('INSERT INTO blob_chunks (blob_id, n, data) VALUES ($1, $2, $3)', [
        blobId,
        n++,
        chunk,
      ]);
      size += chunk.length;
    };
    // Full CHUNK-sized rows except the last, so a byte offset names its row by division.
    const drain = async (all: boolean) => {
      while (pendingBytes >= CHUNK || (all && pendingBytes > 0)) {
        const whole = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
        const take = Math.min(CHUNK, whole.length);
        await writeChunk(whole.subarray(0, take));
        const rest = whole.subarray(take);
        pending = rest.length ? [rest] : [];
        pendingBytes = rest.length;
      }
    };
    let finished = false;
    const discard = () =>
      this.db.query('DELETE FROM blob_chunks WHERE blob_id = $1', [blobId]).catch(() => {});
    return new Writable({
      highWaterMark: CHUNK,
      write: (chunk: Buffer, _enc, cb) => {
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes < CHUNK) return cb();
        drain(false).then(() => cb(), cb);
      },
      final: (cb) => {
        drain(true)
          .then(() =>
            this.db.query(
              `WITH old AS (SELECT blob_id FROM blobs WHERE key = $1 FOR UPDATE),
                    up AS (INSERT INTO blobs (key, blob_id, size) VALUES ($1, $2, $3)
                           ON CONFLICT (key) DO UPDATE SET blob_id = excluded.blob_id, size = excluded.size)
               DELETE FROM blob_chunks WHERE blob_id IN (SELECT blob_id FROM old)`,
              [key, blobId, size],
            ),
          )
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

  open(key: string, range?: ByteRange): Readable {
    checkKey(key);
    let plan: { blobId: string; n: number; last: number; offset: number; end: number } | undefined;
    const db = this.db;
    return new Readable({
      highWaterMark: CHUNK,
      async read() {
        try {
          if (!plan) {
            const r = await db.query<{ blob_id: string; size: string }>(
              'SELECT blob_id, size FROM blobs WHERE key = $1',
              [key],
            );
            const row = r.rows[0];
            if (!row) throw Object.assign(new Error(`no blob ${key}`), { code: 'ENOENT' });
            const size = Number(row.size);
            const start = range?.start ?? 0;
            const end = Math.min(range?.end ?? size - 1, size - 1);
            if (end < start) {
              this.push(null);
              return;
            }
            plan = {
              blobId: row.blob_id,
              n: Math.floor(start / CHUNK),
              last: Math.floor(end / CHUNK),
              offset: start,
              end,
            };
          }
          if (plan.n > plan.last) {
            this.push(null);
            return;
          }
          // substring's offsets are 1-based; on EXTERNAL storage only the slices needed are read.
          const from = plan.offset - plan.n * CHUNK;
          const len = Math.min(CHUNK, plan.end - plan.n * CHUNK + 1) - from;
          const r = await db.query<{ d: Buffer }>(
            'SELECT substring(data FROM $3 FOR $4) AS d FROM blob_chunks WHERE blob_id = $1 AND n = $2',
            [plan.blobId, plan.n, from + 1, len],
          );
          if (!r.rows[0]) throw Object.assign(new Error(`no blob ${key}`), { code: 'ENOENT' });
          plan.n++;
          plan.offset = plan.n * CHUNK;
          this.push(r.rows[0].d);
        } catch (e) {
          this.destroy(e as Error);
        }
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
