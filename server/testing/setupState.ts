import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What npm test's global setup starts without waiting (the throw-away PostgreSQL, the shared
 * Chromium) reports through a file whose path the workers inherit: one line, `ready <value>`
 * or `failed <why>`, written once. A test file that needs the service reads it; the others
 * run meanwhile instead of waiting for both to start (~2 s at the start of every run).
 */
/** The state file of npm test's throw-away PostgreSQL (throwawayCluster.ts, pgCluster.ts). */
export const PG_STATE = 'PARTNER_SIM_TEST_PG_STATE';
/** The state file of the run's shared Chromium; `ready` carries its endpoint (chromium.ts). */
export const CHROMIUM_STATE = 'PARTNER_SIM_TEST_CHROMIUM_STATE';

export interface SetupState {
  path: string;
  ready: (value?: string) => Promise<void>;
  failed: (why: string) => Promise<void>;
  remove: () => Promise<void>;
}

export async function createSetupState(name: string): Promise<SetupState> {
  const path = join(await mkdtemp(join(tmpdir(), `partner-sim-${name}-`)), 'state');
  let written = false;
  const write = async (text: string) => {
    if (written) return;
    written = true;
    // Whole or not at all: a reader never sees half a line.
    await writeFile(`${path}.tmp`, text);
    await rename(`${path}.tmp`, path);
  };
  return {
    path,
    ready: (value = '') => write(`ready ${value}`.trimEnd()),
    failed: (why) => write(`failed ${why}`),
    remove: () => rm(dirname(path), { recursive: true, force: true }),
  };
}

/** The reported value once `ready`; throws with the reason once `failed`, or after `timeoutMs`. */
export async function awaitSetupState(path: string, what: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text === 'ready' || text.startsWith('ready ')) return text.slice(6);
    if (text.startsWith('failed ')) throw new Error(`${what} did not start (${text.slice(7)})`);
    if (Date.now() > deadline) throw new Error(`${what} did not start within ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}
