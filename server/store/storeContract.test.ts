import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { storeConformance } from '../testing/storeContract.js';
import { DiskBlobStore, MemoryBlobStore } from './blobStore.js';
import { FileStore } from './fileStore.js';
import { MemoryStore } from './memoryStore.js';

// The embedded backends against the same cases as PostgreSQL (postgres/pgStore.test.ts).
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'store-conformance-'));
  dirs.push(d);
  return d;
};

const memoryBlobs = new MemoryBlobStore();
storeConformance('memory', { open: async () => new MemoryStore(), blobs: () => memoryBlobs });

let diskBlobs: DiskBlobStore | undefined;
storeConformance('file', {
  open: async () => {
    const dir = await tempDir();
    diskBlobs = new DiskBlobStore(join(dir, 'blobs'));
    return FileStore.open(join(dir, 'state'));
  },
  blobs: () => diskBlobs!,
});
