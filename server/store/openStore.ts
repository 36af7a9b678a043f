import { join } from 'node:path';
import { FileStore } from './fileStore.js';
import { MemoryStore } from './memoryStore.js';
import type { Store } from './store.js';

/** The store a configuration asks for: memory, or the file store under `<dataDir>/state`. */
export async function openStore(opts: { inMemory: boolean; dataDir: string }): Promise<Store> {
  return opts.inMemory ? new MemoryStore() : FileStore.open(join(opts.dataDir, 'state'));
}
