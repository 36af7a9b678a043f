import { join } from 'node:path';
import { type BlobStore, DiskBlobStore, MemoryBlobStore } from './blobStore.js';
import { FileStore } from './fileStore.js';
import { MemoryStore } from './memoryStore.js';
import type { Store } from './store.js';

export interface StoreChoice {
  inMemory: boolean;
  dataDir: string;
  /** A postgres:// URL (`--store`), or undefined for the embedded stores. */
  store?: string | undefined;
}

/**
 * The store a configuration asks for: PostgreSQL (`--store postgres://…`, shared, no data-folder
 * lock: several instances may use one folder), memory, or the file store under `<dataDir>/state`.
 * The PostgreSQL driver is loaded only when asked for.
 */
export async function openStore(
  opts: StoreChoice,
  /** Told what the file store's background load could not read (a corrupt record file). */
  warn: (message: string) => void = () => {},
): Promise<Store> {
  if (opts.store !== undefined) {
    const { PgStore } = await import('./postgres/pgStore.js').catch((e: Error & { code?: string }) => {
      throw missingDriver(e);
    });
    return PgStore.open(opts.store);
  }
  return opts.inMemory ? new MemoryStore() : FileStore.open(join(opts.dataDir, 'state'), warn);
}

/**
 * `pg` is an optional dependency (a plain install stays lighter): when it was left out
 * (`npm install --omit=optional`), `--store postgres://…` says how to add it.
 */
export function missingDriver(e: Error & { code?: string }): Error {
  if (e.code !== 'ERR_MODULE_NOT_FOUND' || !/'pg'/.test(e.message)) return e;
  return Object.assign(
    new Error(
      "--store postgres://… needs the PostgreSQL driver, an optional dependency left out of this install: run 'npm install pg'",
    ),
    { name: 'ConfigError' },
  );
}

/** A store that keeps the uploaded bytes too (PostgreSQL: every instance serves every blob). */
interface BlobHost {
  blobStore(): BlobStore;
}
const hostsBlobs = (s: Store): s is Store & BlobHost =>
  typeof (s as Partial<BlobHost>).blobStore === 'function';

/** Where uploaded bytes live: with the store when it keeps them, else memory or `<dataDir>/blobs`. */
export function openBlobStore(opts: StoreChoice, store: Store): BlobStore {
  if (hostsBlobs(store)) return store.blobStore();
  return opts.inMemory ? new MemoryBlobStore() : new DiskBlobStore(join(opts.dataDir, 'blobs'));
}
