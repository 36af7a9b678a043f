import pg from 'pg';
import type { Mirror } from './mirror.js';
import { MIRROR_CHANNEL } from './pgCollection.js';
import type { Pool } from './pool.js';

interface VersionRow {
  collection: string;
  version: string;
  pruned_below: string;
}

/**
 * Brings this instance's mirrors up to date with what every instance committed. `sync()` reads
 * the few rows of `mirror_versions` (one cheap query; usually nothing changed and that is
 * all), then fetches only the rows and tombstones newer than each mirror's known version, in
 * one query. Calls that arrive while a sync is in flight share the NEXT run, never the current
 * one: its query may have been sent before a write they must see was committed.
 *
 * A LISTEN connection runs a sync in the background when another instance writes, so idle
 * instances stay fresh; a lost notification costs nothing but that head start.
 */
export class MirrorSync {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private listener: pg.Client | undefined;
  private closed = false;

  constructor(
    private readonly db: Pool,
    private readonly url: string,
    private readonly mirrors: Map<string, Mirror<unknown>>,
  ) {}

  sync(): Promise<void> {
    if (!this.running) {
      const run = this.run().finally(() => {
        if (this.running === run) this.running = undefined;
      });
      this.running = run;
      return run;
    }
    this.queued ??= this.running
      .catch(() => {})
      .then(() => {
        this.queued = undefined;
        return this.sync();
      });
    return this.queued;
  }

  private async run(): Promise<void> {
    const r = await this.db.query<VersionRow>(
      'SELECT collection, version, pruned_below FROM mirror_versions',
    );
    const stale: Array<[string, number]> = [];
    const reload: Array<[string, number]> = [];
    for (const row of r.rows) {
      const m = this.mirrors.get(row.collection);
      const version = Number(row.version);
      if (!m || version <= m.known) continue;
      if (m.known < Number(row.pruned_below) || m.known < 0) reload.push([row.collection, version]);
      else stale.push([row.collection, m.known]);
    }
    await Promise.all([
      ...reload.map(([name, version]) => this.reload(name, version)),
      stale.length
        ? this.fetchChanges(stale, new Map(r.rows.map((x) => [x.collection, Number(x.version)])))
        : null,
    ]);
  }

  private async reload(name: string, version: number): Promise<void> {
    const r = await this.db.query<{ id: string; data: unknown; version: string | null }>(
      'SELECT id, data, version FROM records WHERE collection = $1',
      [name],
    );
    this.mirrors.get(name)!.replace(
      r.rows.map((row) => [row.id, row.data, Number(row.version ?? 0)] as [string, unknown, number]),
      version,
    );
  }

  /**
   * Rows and tombstones newer than each mirror's version, and in the SAME statement (one
   * snapshot) each prune horizon: tombstones pruned since the versions were read would be
   * missing, so a collection whose horizon passed its mirror reloads instead.
   */
  private async fetchChanges(stale: Array<[string, number]>, versions: Map<string, number>): Promise<void> {
    const r = await this.db.query<{
      kind: 'p' | 'r' | 't';
      collection: string;
      id: string;
      data: unknown;
      version: string;
    }>(
      `WITH k(collection, v) AS (SELECT * FROM unnest($1::text[], $2::bigint[]))
       SELECT 'p' AS kind, m.collection, NULL AS id, NULL::jsonb AS data, m.version FROM mirror_versions m
         JOIN k ON m.collection = k.collection AND m.pruned_below > k.v
       UNION ALL
       SELECT 'r', r.collection, r.id, r.data, r.version FROM records r
         JOIN k ON r.collection = k.collection AND r.version > k.v
       UNION ALL
       SELECT 't', t.collection, t.id, NULL, t.version FROM tombstones t
         JOIN k ON t.collection = k.collection AND t.version > k.v
       ORDER BY version`,
      [stale.map((s) => s[0]), stale.map((s) => s[1])],
    );
    const reload = new Map(
      r.rows.filter((row) => row.kind === 'p').map((row) => [row.collection, Number(row.version)]),
    );
    for (const row of r.rows)
      if (row.kind !== 'p' && !reload.has(row.collection))
        this.mirrors.get(row.collection)!.apply(row.id, row.data ?? undefined, Number(row.version));
    for (const [name] of stale) if (!reload.has(name)) this.mirrors.get(name)!.advance(versions.get(name)!);
    await Promise.all([...reload].map(([name, version]) => this.reload(name, version)));
  }

  /** Start listening for other instances' writes (best effort, reconnecting). */
  async listen(): Promise<void> {
    if (this.closed) return;
    const c = new pg.Client({ connectionString: this.url, application_name: 'partner-sim listen' });
    const retry = () => {
      if (this.listener !== c) return;
      this.listener = undefined;
      c.end().catch(() => {});
      if (!this.closed) setTimeout(() => void this.listen().catch(() => {}), 1000).unref();
    };
    c.on('error', retry);
    c.on('end', retry);
    c.on('notification', () => {
      this.sync().catch(() => {});
    });
    this.listener = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${MIRROR_CHANNEL}`);
    } catch {
      retry();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.listener;
    this.listener = undefined;
    await c?.end().catch(() => {});
    await this.running?.catch(() => {});
    await this.queued?.catch(() => {});
  }
}
