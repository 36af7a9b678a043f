import pg from 'pg';

/**
 * Databases made on a PostgreSQL server for one test file or one benchmark and dropped after
 * it, so parallel users of one throw-away cluster never see each other's rows. No vitest here:
 * the benchmarks (plain node) use it as well as the tests (pgCluster.ts).
 */
let made = 0;

/** A new empty database beside the one `serverUrl` names; `drop` removes it (connections and all). */
export async function createDatabase(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `ps_${process.pid}_${++made}_${Math.random().toString(36).slice(2, 8)}`;
  // FILE_COPY copies the template's files; PostgreSQL 15's default (WAL_LOG) writes them all
  // through the WAL: 150 against 250 ms of the server's CPU a database (create and drop),
  // measured on the throw-away cluster (issue 33). Servers before 15 know no STRATEGY.
  await admin(serverUrl, `CREATE DATABASE ${name} STRATEGY = FILE_COPY`).catch((e: { code?: string }) => {
    if (e.code !== '42601') throw e;
    return admin(serverUrl, `CREATE DATABASE ${name}`);
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function admin(serverUrl: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
