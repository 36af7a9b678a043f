import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fromRoot } from '../core/root.js';
import { freePort } from './freePort.js';
import { createSetupState } from './setupState.js';

export function havePostgresBinaries(): boolean {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return false;
  return readdirSync(root).some(
    (v) => existsSync(`${root}/${v}/bin/initdb`) && existsSync(`${root}/${v}/bin/pg_ctl`),
  );
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
  const state = await createSetupState('pg');
  const child: ChildProcess = spawn(fromRoot('.ci/with-postgres'), ['sh', '-c', 'cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PARTNER_SIM_PG_PORT: String(port) },
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (/at postgres:\/\//.test(out)) void state.ready();
  });
  child.stderr?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  // After `ready` these change nothing: a state is written once.
  child.once('error', (e) => void state.failed(e.message));
  child.once('exit', (code) => void state.failed(`exit ${code}: ${reason(out)}`));
  return {
    url: `postgres://postgres@127.0.0.1:${port}/partner_sim_test`,
    state: state.path,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin?.end(); // the script's command ends, and its trap stops and deletes the cluster
        await exited;
      }
      await state.remove();
    },
  };
}
