import { join } from 'node:path';
import { type BlobStore, DiskBlobStore, MemoryBlobStore } from '../storage/blobStore.js';
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
    const { PgStore } = await import('./postgres/pgStore.js');
    return PgStore.open(opts.store);
  }
  return opts.inMemory ? new MemoryStore() : FileStore.open(join(opts.dataDir, 'state'), warn);
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
