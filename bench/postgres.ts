import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { fromRoot } from '../server/core/root.js';
import { createDatabase } from '../server/testing/pgDatabases.js';
import { type BenchArgs, procStat } from './lib.js';

/**
 * The PostgreSQL the benchmarks measure: `--pg <url>`, else PARTNER_SIM_TEST_PG, else a
 * throw-away cluster started by `.ci/with-postgres` (the one implementation of cluster
 * start-up: the bench re-executes itself under it). When that cannot start one (no binaries
 * and no way to install them), the PostgreSQL rows print "skipped: <why>" instead.
 */

/** Set by the outer run: the file the re-executed bench creates, proving the cluster came up. */
const STARTED_MARK = 'PARTNER_SIM_BENCH_PG_STARTED';
/** The flag the outer run passes to its own benchmarks when no cluster could be started. */
const SKIP_FLAG = 'pg-skipped';

export function givenPgUrl(flags: Record<string, string>): string | undefined {
  return flags.pg ?? (process.env.PARTNER_SIM_TEST_PG || undefined);
}

/** In the re-executed bench: tell the outer run that the cluster is up and we are running. */
export function markStartedUnderPostgres(): void {
  const mark = process.env[STARTED_MARK];
  if (mark) writeFileSync(mark, '');
}

/**
 * Run this bench again under `.ci/with-postgres` with the same arguments. `code`: the inner
 * bench ran and exited so; `skip`: the cluster never came up (the inner bench never started),
 * so the caller runs the benchmarks itself with `flags['pg-skipped']` set to the reason.
 */
export async function rerunUnderPostgres(argv: string[]): Promise<{ code: number } | { skip: string }> {
  const mark = join(tmpdir(), `partner-sim-bench-${process.pid}.started`);
  const child = spawn(fromRoot('.ci', 'with-postgres'), [process.execPath, process.argv[1]!, ...argv], {
    stdio: ['inherit', 'inherit', 'pipe'],
    env: { ...process.env, [STARTED_MARK]: mark },
  });
  let tail = '';
  child.stderr!.on('data', (d: Buffer) => {
    process.stderr.write(d);
    tail = (tail + d.toString()).slice(-400);
  });
  const code = await new Promise<number>((resolve) => {
    child.on('error', (e) => {
      tail = e.message;
      resolve(127);
    });
    child.on('exit', (c) => resolve(c ?? 1));
  });
  if (existsSync(mark)) {
    rmSync(mark, { force: true });
    return { code };
  }
  const why = tail.trim().split('\n').pop() || `exit code ${code}`;
  return { skip: `no PostgreSQL: .ci/with-postgres could not start a cluster (${why})` };
}

export const skipOnlyPg = (reason: string): Record<string, string> => ({ [SKIP_FLAG]: reason });

/**
 * A fresh database for one measurement (dropped by `drop`), or why there is none: the
 * skip reason of the outer run, or no URL at all (the bench was not run through run.ts).
 */
export async function benchDatabase(
  args: BenchArgs,
): Promise<{ url: string; drop: () => Promise<void> } | { skip: string }> {
  const skipped = args.flags[SKIP_FLAG];
  if (skipped) return { skip: skipped };
  const server = givenPgUrl(args.flags);
  if (!server) return { skip: 'no PostgreSQL: pass --pg postgres://… or set PARTNER_SIM_TEST_PG' };
  return createDatabase(server);
}

/**
 * The processes of the PostgreSQL server at `url` when it runs on this machine (its postmaster's
 * children: one backend per connection), so a benchmark can count the database's CPU too;
 * empty when it runs elsewhere or /proc cannot tell.
 */
export async function serverProcesses(url: string): Promise<() => number[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let postmaster = 0;
  try {
    const backend = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    postmaster = Number(procStat(backend)?.[1] ?? 0);
  } finally {
    await c.end();
  }
  return () => {
    if (!postmaster) return [];
    const pids = [postmaster];
    for (const name of readdirSync('/proc'))
      if (/^\d+$/.test(name) && Number(procStat(Number(name))?.[1]) === postmaster) pids.push(Number(name));
    return pids;
  };
}
