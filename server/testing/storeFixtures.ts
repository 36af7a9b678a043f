import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobStore } from '../store/blobStore.js';
import type { JournalEntry } from '../store/store.js';

/** Small builders the store conformance suite and the backend tests share. */
export function journalEntry(
  operation: string,
  status: number,
  clientId: string | null,
): Omit<JournalEntry, 'id'> {
  return {
    time: new Date(0).toISOString(),
    operation,
    method: 'GET',
    path: '/x',
    status,
    latency_ms: 1,
    client_id: clientId,
    headers: {},
    fault_id: null,
  } as Omit<JournalEntry, 'id'>;
}

export function pattern(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

export async function readAll(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

export async function writeBlob(
  blobs: BlobStore,
  key: string,
  data: Buffer,
  piece = 64 * 1024,
): Promise<void> {
  const sink = await blobs.sink(key);
  async function* pieces() {
    for (let i = 0; i < data.length; i += piece) yield data.subarray(i, i + piece);
  }
  await pipeline(Readable.from(pieces()), sink);
}
