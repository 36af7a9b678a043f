import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobStore, ByteRange } from '../store/blobStore.js';
import type { HashPool } from './hashPool.js';

export interface Received {
  /** Bytes the client sent (counted to the end, also past the limit). */
  size: number;
  /** Binary MD5 of what was written; meaningless when `tooLarge`. */
  md5: Buffer;
  /** More than `maxBytes` arrived: only the first bytes were written, the rest drained. */
  tooLarge: boolean;
}

/**
 * Stream `source` into `sink`, hashed on the way by a worker of `pool`, with backpressure: memory holds a few
 * socket chunks, never a part. Past `maxBytes` nothing more is written but the body is still
 * read to its end, so the client gets the S3 error document rather than a reset connection.
 * The source is never destroyed by us (`destroyOnReturn: false`) for the same reason.
 */
export async function receive(
  source: Readable,
  sink: Writable,
  maxBytes: number,
  pool: HashPool,
): Promise<Received> {
  const job = pool.job(pool.leastBusy());
  let size = 0;
  let tooLarge = false;
  try {
    await pipeline(async function* () {
      for await (const chunk of source.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (tooLarge || size > maxBytes) {
          tooLarge = true;
          continue;
        }
        // Copied to the worker before the chunk goes to disk; waits only if it falls behind.
        const wait = job.update(chunk);
        if (wait) await wait;
        yield chunk;
      }
    }, sink);
  } finally {
    await job.end().catch(() => undefined);
  }
  return { size, md5: await job.end(), tooLarge };
}

/** One stream over consecutive blobs (an object stored as its parts), or a byte range of it. */
export function openParts(
  blobs: BlobStore,
  parts: { blob: string; size: number }[],
  range?: ByteRange,
): Readable {
  return Readable.from(
    (async function* () {
      let pos = 0;
      for (const p of parts) {
        const from = pos;
        pos += p.size;
        if (p.size === 0) continue;
        if (range && (pos - 1 < range.start || from > range.end)) continue;
        const sub = range
          ? { start: Math.max(0, range.start - from), end: Math.min(p.size - 1, range.end - from) }
          : undefined;
        yield* blobs.open(p.blob, sub) as AsyncIterable<Buffer>;
      }
    })(),
    { objectMode: false },
  );
}
