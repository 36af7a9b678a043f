import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreChoice } from '../server/store/openStore.js';
import { type SpawnedSim, spawnSimulator } from './lib.js';

/** Where a measured simulator keeps its state: a data folder (the file store) or a database. */
export type BenchStore = { kind: 'file'; dataDir: string } | { kind: 'postgres'; url: string };

/** The same store as `openStore` sees it, for a benchmark that writes to it directly. */
export const storeChoice = (s: BenchStore): StoreChoice =>
  s.kind === 'file'
    ? { inMemory: false, dataDir: s.dataDir }
    : { inMemory: false, dataDir: tmpdir(), store: s.url };

/** A file store in a new temporary data folder; `drop` deletes it. */
export async function tempFileStore(): Promise<{ store: BenchStore; drop: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'partner-sim-bench-'));
  return { store: { kind: 'file', dataDir }, drop: () => rm(dataDir, { recursive: true, force: true }) };
}

export interface Fleet {
  sims: SpawnedSim[];
  urls: string[];
  stop(): Promise<void>;
}

/**
 * `n` simulators (the built entry, default settings unless `quiet`) on one store: the file
 * store's folder, or one PostgreSQL database with a data folder of its own per instance, as
 * separate machines would have. The file store allows one instance per folder.
 */
export async function startFleet(store: BenchStore, n = 1, { quiet = true } = {}): Promise<Fleet> {
  if (store.kind === 'file' && n !== 1) throw new Error('the file store takes one instance per data folder');
  const dirs: string[] = [];
  const sims: SpawnedSim[] = [];
  const ownDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'partner-sim-bench-'));
    dirs.push(dir);
    return dir;
  };
  const stop = async () => {
    await Promise.all(sims.map((s) => s.stop()));
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  };
  try {
    for (let i = 0; i < n; i++) {
      const args =
        store.kind === 'file'
          ? ['--data-dir', store.dataDir]
          : ['--store', store.url, '--data-dir', await ownDir()];
      sims.push(await spawnSimulator(args, [], { quiet }));
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { sims, urls: sims.map((s) => s.url), stop };
}
