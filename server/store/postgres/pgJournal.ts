import {
  type DeferredEntry,
  type JournalCount,
  type JournalEntry,
  type JournalLog,
  type JournalQuery,
  unverifiedRing,
} from '../store.js';
import { inTransaction, type Pool } from './pool.js';

/** The ring of requests that belong to no app, as stored in `journal.ring`. */
const NO_APP = '';

/**
 * The request journal in PostgreSQL, shared by every instance: ids come from one sequence
 * (`req_` + bigserial), so they are unique across instances and grow with arrival order.
 *
 * Capacity per ring is kept exact for readers (every listing looks only at each ring's newest
 * `capacity` rows) and cheap for writers: instead of a trim per insert, each instance trims a
 * ring after every `capacity / 8` of its own inserts into it, so a ring holds at most about
 * capacity + instances × capacity / 8 rows.
 *
 * `add` resolves once the row is committed: in shared mode the recorder must await it before
 * the response completes, so a client that lists the journal on another instance next sees
 * its request.
 */
export class PgJournal implements JournalLog {
  private readonly sinceTrim = new Map<string, number>();
  private readonly trimEvery: number;

  constructor(
    private readonly db: Pool,
    readonly capacity: number,
  ) {
    this.trimEvery = Math.max(1, Math.floor(capacity / 8));
  }

  async add(
    recorded: Omit<JournalEntry, 'id'> | DeferredEntry,
    timeMs: number,
    ring?: string,
  ): Promise<string> {
    // Every instance reads what is written here: the finished, redacted entry goes in.
    const entry = 'build' in recorded ? recorded.build() : recorded;
    const key = ring ?? NO_APP;
    if (this.capacity === 0) {
      // Nothing kept, but the id still comes from the shared sequence.
      const r = await this.db.query<{ seq: string }>(
        "SELECT nextval(pg_get_serial_sequence('journal', 'seq')) AS seq",
      );
      return journalId(r.rows[0]!.seq);
    }
    const r = await this.db.query<{ seq: string }>(
      `INSERT INTO journal (ring, client_id, operation, status, time_ms, entry)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING seq`,
      [key, entry.client_id ?? null, entry.operation ?? null, entry.status, timeMs, JSON.stringify(entry)],
    );
    const id = journalId(r.rows[0]!.seq);
    const n = (this.sinceTrim.get(key) ?? 0) + 1;
    if (n >= this.trimEvery) {
      this.sinceTrim.delete(key);
      this.trim(key).catch(() => {});
    } else this.sinceTrim.set(key, n);
    return id;
  }

  /** Drop what lies beyond the ring's newest `capacity` rows (one index range, off the request). */
  private async trim(ring: string): Promise<void> {
    await this.db.query(
      `DELETE FROM journal WHERE ring = $1 AND seq <= (
         SELECT seq FROM journal WHERE ring = $1 ORDER BY seq DESC OFFSET $2 LIMIT 1)`,
      [ring, this.capacity],
    );
  }

  /** The rings a query looks at and its filters, as SQL over each ring's newest `capacity` rows. */
  private query(q: JournalQuery): {
    rings: string;
    where: string[];
    args: unknown[];
    arg: (v: unknown) => string;
  } {
    const args: unknown[] = [this.capacity];
    const where: string[] = [];
    const arg = (v: unknown) => {
      args.push(v);
      return `$${args.length}`;
    };
    if (q.operation !== undefined) where.push(`j.operation = ${arg(q.operation)}`);
    if (q.status !== undefined) where.push(`j.status = ${arg(q.status)}`);
    if (q.sinceMs !== undefined) where.push(`j.time_ms >= ${arg(q.sinceMs)}`);
    if (q.unverified !== undefined)
      where.push(`coalesce((j.entry->>'unverified')::boolean, false) = ${arg(q.unverified)}`);
    if (q.method !== undefined) where.push(`j.entry->>'method' = ${arg(q.method)}`);
    if (q.path !== undefined) {
      const path = `split_part(j.entry->>'path', '?', 1)`;
      where.push(
        q.path.endsWith('*')
          ? `starts_with(${path}, ${arg(q.path.slice(0, -1))})`
          : `${path} = ${arg(q.path)}`,
      );
    }
    let rings = 'SELECT DISTINCT ring FROM journal';
    if (q.clientId !== undefined) {
      const c = arg(q.clientId);
      where.push(`j.client_id = ${c}`);
      rings = `SELECT DISTINCT unnest(ARRAY[${c}::text, ${arg(unverifiedRing(q.clientId))}::text, '${NO_APP}'])`;
    }
    return { rings, where, args, arg };
  }

  async list(q: JournalQuery = {}): Promise<JournalEntry[]> {
    const { rings, where, args, arg } = this.query(q);
    const limit = q.limit ?? 100;
    // One app's listing shows only the newest `capacity` of its merged rings, on every page:
    // they are picked before the cursor (`beforeSeq`) applies.
    const perApp = q.clientId !== undefined;
    const before = q.beforeSeq === undefined ? undefined : arg(q.beforeSeq);
    if (before && !perApp) where.push(`j.seq < ${before}`);
    const picked = `SELECT j.seq, j.entry FROM (${rings}) AS rs(ring)
       CROSS JOIN LATERAL (SELECT * FROM journal WHERE journal.ring = rs.ring ORDER BY seq DESC LIMIT $1) j
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY j.seq DESC LIMIT ${perApp ? '$1' : arg(limit)}`;
    const r = await this.db.query<{ seq: string; entry: Omit<JournalEntry, 'id'> }>(
      perApp
        ? `SELECT x.seq, x.entry FROM (${picked}) x ${before ? `WHERE x.seq < ${before}` : ''}
           ORDER BY x.seq DESC LIMIT ${arg(limit)}`
        : picked,
      args,
    );
    return r.rows.map((row) => ({ id: journalId(row.seq), ...row.entry }) as JournalEntry);
  }

  async count(q: JournalQuery): Promise<JournalCount> {
    const { rings, where, args, arg } = this.query(q);
    // Per ring: its matches, and whether it is full with nothing older than `since` kept.
    const since = q.sinceMs === undefined ? 'false' : `min(j.time_ms) < ${arg(q.sinceMs)}`;
    const r = await this.db.query<{ count: number; complete: boolean }>(
      `SELECT coalesce(sum(n), 0)::int AS count, coalesce(bool_and(ok), true) AS complete FROM (
         SELECT count(*) FILTER (WHERE ${where.length ? where.join(' AND ') : 'true'}) AS n,
                count(*) < $1 OR ${since} AS ok
         FROM (${rings}) AS rs(ring)
         CROSS JOIN LATERAL (SELECT * FROM journal WHERE journal.ring = rs.ring ORDER BY seq DESC LIMIT $1) j
         GROUP BY rs.ring) per_ring`,
      args,
    );
    return r.rows[0]!;
  }

  async clear(clientId?: string): Promise<number> {
    return inTransaction(this.db, async (c) => {
      // Count what a listing would show (each ring's newest `capacity`), then drop it all.
      if (clientId === undefined) {
        const n = await c.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM (
             SELECT row_number() OVER (PARTITION BY ring ORDER BY seq DESC) AS k FROM journal) x
           WHERE k <= $1`,
          [this.capacity],
        );
        await c.query('DELETE FROM journal');
        return n.rows[0]!.n;
      }
      const n = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (
           SELECT ring, client_id, row_number() OVER (PARTITION BY ring ORDER BY seq DESC) AS k
           FROM journal WHERE ring IN ($2, $3, '${NO_APP}')) x
         WHERE k <= $1 AND (ring IN ($2, $3) OR client_id = $2)`,
        [this.capacity, clientId, unverifiedRing(clientId)],
      );
      await c.query(`DELETE FROM journal WHERE ring IN ($1, $2) OR (ring = '${NO_APP}' AND client_id = $1)`, [
        clientId,
        unverifiedRing(clientId),
      ]);
      return n.rows[0]!.n;
    });
  }
}

const journalId = (seq: string) => `req_${seq.padStart(6, '0')}`;
