import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { PgStore } from '../store/postgres/pgStore.js';
import { createDatabase } from './pgDatabases.js';
import { awaitSetupState, PG_STATE } from './setupState.js';

/**
 * PostgreSQL for tests: `.ci/with-postgres` (CI runs the suite under it) starts a throw-away
 * cluster and exports its URL as PARTNER_SIM_TEST_PG. Tests that need it skip without it,
 * saying so; each test file gets its own database, so parallel files never see each other.
 */
export const testPgUrl: string | undefined = process.env.PARTNER_SIM_TEST_PG || undefined;

export const PG_SKIP_REASON =
  'needs PostgreSQL: set PARTNER_SIM_TEST_PG=postgres://… or run under .ci/with-postgres';

let ready: Promise<string> | undefined;

/**
 * Resolves once npm test's throw-away cluster is up (its global setup starts it without
 * waiting, throwawayCluster.ts); at once for a cluster someone else started.
 */
function clusterReady(): Promise<unknown> {
  const state = process.env[PG_STATE];
  if (!state) return Promise.resolve();
  ready ??= awaitSetupState(state, 'the throw-away PostgreSQL cluster');
  return ready;
}

/** A new empty database on the test cluster; `drop` removes it (connections and all). */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!testPgUrl) throw new Error(PG_SKIP_REASON);
  await clusterReady();
  return createDatabase(testPgUrl);
}

/**
 * In a `describe`: a fresh database for the block (dropped after it), its URL and a plain SQL
 * client on it for looking under the store. Read the fields inside tests and hooks.
 */
export function useTestDatabase(): { url: string; sql: pg.Client } {
  const ctx = {} as { url: string; sql: pg.Client };
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const d = await freshDatabase();
    drop = d.drop;
    ctx.url = d.url;
    ctx.sql = new pg.Client({ connectionString: d.url });
    await ctx.sql.connect();
  });
  afterAll(async () => {
    await ctx.sql?.end();
    await drop?.();
  });
  return ctx;
}

/** `useTestDatabase` plus one store opened on it for the block (no LISTEN connection). */
export function useTestStore(): { url: string; sql: pg.Client; store: PgStore } {
  const ctx = useTestDatabase() as { url: string; sql: pg.Client; store: PgStore };
  beforeAll(async () => {
    ctx.store = await PgStore.open(ctx.url, { listen: false });
  });
  afterAll(async () => {
    await ctx.store?.close();
  });
  return ctx;
}
