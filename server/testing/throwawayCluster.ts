import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fromRoot } from '../core/root.js';

/** Names the file where a starting cluster reports `ready` or `failed: <why>` (pgCluster.ts reads it). */
export const PG_STATE = 'PARTNER_SIM_TEST_PG_STATE';

export function havePostgresBinaries(): boolean {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return false;
  return readdirSync(root).some(
    (v) => existsSync(`${root}/${v}/bin/initdb`) && existsSync(`${root}/${v}/bin/pg_ctl`),
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The lines of the script's output that say what went wrong (PostgreSQL logs much else). */
function reason(out: string): string {
  const lines = out.trim().split('\n');
  const telling = lines.filter((l) => /FATAL|ERROR|could not|error/i.test(l)).slice(0, 3);
  return (telling.length > 0 ? telling : lines.slice(-1))
    .map((l) => l.replace(/^\S+ \S+ UTC \[\d+\] /, ''))
    .join('; ');
}

/**
 * `.ci/with-postgres` holding a cluster open until `stop()`, started without waiting for it:
 * its URL is known at once (the port is chosen here), and the state file says when it is up
 * or why it did not start. The test files that need it wait for that (pgCluster.ts) while
 * the others run: initdb and the server's start took ~2 s before any test file could begin.
 */
export async function startThrowawayCluster(port?: number): Promise<{
  url: string;
  state: string;
  stop: () => Promise<void>;
}> {
  port ??= await freePort();
  const state = join(await mkdtemp(join(tmpdir(), 'partner-sim-pg-state-')), 'state');
  const child: ChildProcess = spawn(fromRoot('.ci/with-postgres'), ['sh', '-c', 'cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PARTNER_SIM_PG_PORT: String(port) },
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const report = (text: string) => writeFile(state, text).catch(() => {});
  let reported = false;
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (!reported && /at postgres:\/\//.test(out)) {
      reported = true;
      void report('ready');
    }
  });
  child.stderr?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const failed = (why: string) => {
    if (reported) return;
    reported = true;
    void report(`failed: ${why}`);
  };
  child.once('error', (e) => failed(e.message));
  child.once('exit', (code) => failed(`exit ${code}: ${reason(out)}`));
  return {
    url: `postgres://postgres@127.0.0.1:${port}/partner_sim_test`,
    state,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin?.end(); // the script's command ends, and its trap stops and deletes the cluster
        await exited;
      }
      await rm(dirname(state), { recursive: true, force: true });
    },
  };
}
