import { createHash, type Hash } from 'node:crypto';

/** What the recording keeps of a body that went past: its length, MD5, and bytes up to a cap. */
export interface TappedBody {
  size: number;
  md5: string;
  /** The whole body, when it was to be kept and fit under the cap; otherwise undefined. */
  bytes?: Buffer;
}

/**
 * Watches a body stream by as it goes on (to the upstream or the client): counts it, hashes it
 * (a running MD5, so no byte is held for the hash) and keeps a copy only while the whole body
 * still fits under `limit`. Past the cap the copy is dropped at once, so however large the
 * body, a tap holds at most `limit` bytes. `keep: false` (audio, octet streams) keeps none.
 *
 * (server/storage/runningMd5.ts is the upload store's: a worker-thread hash over stored part
 * blobs. Here the bytes are in hand as they pass, so the hash is fed on the spot.)
 */
export class BodyTap {
  private size = 0;
  private readonly hash: Hash = createHash('md5');
  private chunks: Buffer[] | undefined;

  constructor(
    keep: boolean,
    private readonly limit: number,
  ) {
    if (keep) this.chunks = [];
  }

  /** One chunk as it passes; an arrow, so it can be a 'data' listener as it is. */
  readonly add = (chunk: Buffer): void => {
    this.size += chunk.length;
    this.hash.update(chunk);
    if (!this.chunks) return;
    if (this.size > this.limit) this.chunks = undefined;
    else this.chunks.push(chunk);
  };

  /** The body as seen so far; call once, at its end. */
  done(): TappedBody {
    const md5 = this.hash.digest('hex');
    return { size: this.size, md5, ...(this.chunks ? { bytes: Buffer.concat(this.chunks) } : {}) };
  }
}
