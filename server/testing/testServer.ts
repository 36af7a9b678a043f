import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, testConfig } from '../config.js';
import { type RunningSimulator, serveSimulator } from '../simulator.js';

export interface TestServer extends RunningSimulator {
  /** Partner API base for the US region, e.g. http://127.0.0.1:PORT/developer/api */
  api: string;
  /** Partner API base for the JP region. */
  apiJp: string;
  admin: string;
}

/**
 * A fresh simulator on port 0 for one test file: in memory unless a data dir is given,
 * responses validated against the spec, silent logs.
 */
export async function startTestServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const sim = await serveSimulator(testConfig(overrides));
  return {
    ...sim,
    api: `${sim.url}/developer/api`,
    apiJp: `${sim.url}/jp/developer/api`,
    admin: `${sim.url}/__admin`,
  };
}

/** A temporary data folder, removed by the returned cleanup. */
export async function tempDataDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'partner-sim-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
