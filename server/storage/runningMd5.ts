import type { BlobStore } from '../store/blobStore.js';
import type { HashJob, HashPool, JobBase } from './hashPool.js';

interface Running {
  /** The worker that holds this upload's states. */
  worker: number;
  /** The stored blob of each part number, as PUTs reported them. */
  stored: Map<number, string>;
  /** Blobs of parts 1..n in the worker's state, in order. */
  fed: string[];
  /** The feeding in progress (one at a time per upload). */
  chain: Promise<void>;
}

let instances = 0;

/** Hash one blob on a job: the worker reads a file itself; other stores stream it over. */
async function hashBlob(blobs: BlobStore, key: string, job: HashJob): Promise<void> {
  const path = blobs.path(key);
  if (path !== undefined) return job.file(path);
  for await (const chunk of blobs.open(key) as AsyncIterable<Buffer>) await job.update(chunk);
}

/**
 * The whole file's MD5, worked out while parts arrive, so complete-upload only finishes the
 * little that is left instead of reading the object back. MD5 cannot be combined from part
 * digests, so a worker keeps a running hash over the contiguous prefix of parts stored so far
 * (parts 1..n), fed from each part's blob (still in the page cache) once the parts before it
 * are in, with the state after every part kept: a part PUT again restarts the hash from the
 * state before it. The states are only in memory: after a restart, on another instance, or
 * if anything fails, `fileMd5` reads back what it lacks, from the longest prefix that matches.
 */
export class RunningMd5 {
  private readonly uploads = new Map<string, Running>();
  private readonly id = ++instances;

  constructor(
    private readonly pool: HashPool,
    private readonly blobs: BlobStore,
  ) {}

  private key(uploadId: string): string {
    return `${this.id}:${uploadId}`;
  }

  /** A part's blob was stored (its record written): feed it and any parts waiting on it. */
  stored(uploadId: string, part: number, blob: string): void {
    let r = this.uploads.get(uploadId);
    if (!r) {
      r = {
        worker: this.pool.leastBusy(),
        stored: new Map(),
        fed: [],
        chain: Promise.resolve(),
      };
      this.uploads.set(uploadId, r);
    }
    r.stored.set(part, blob);
    if (part <= r.fed.length && r.fed[part - 1] !== blob) {
      r.fed.length = part - 1;
      this.pool.truncate(r.worker, this.key(uploadId), part - 1);
    }
    const running = r;
    r.chain = r.chain.then(() => this.pump(uploadId, running)).catch(() => undefined);
  }

  /** Feed parts in order while the next one is stored; stop quietly at the first failure. */
  private async pump(uploadId: string, r: Running): Promise<void> {
    for (let blob = r.stored.get(r.fed.length + 1); blob; blob = r.stored.get(r.fed.length + 1)) {
      if (this.uploads.get(uploadId) !== r) return;
      const at = r.fed.length;
      try {
        const job = this.pool.job(r.worker, { key: this.key(uploadId), at, save: at + 1 });
        await hashBlob(this.blobs, blob, job);
        await job.end();
      } catch {
        return; // e.g. the blob was replaced and deleted meanwhile: a later `stored` resumes
      }
      // Replaced while it was hashed: the loop feeds the new blob over the same state.
      if (r.fed.length === at && r.stored.get(at + 1) === blob) r.fed.push(blob);
    }
  }

  /**
   * MD5 (hex) of `parts` (blob keys, in order): the running state over the longest prefix
   * that matches, finished with the rest read back; everything read back when that fails.
   */
  async fileMd5(uploadId: string, parts: string[]): Promise<string> {
    const r = this.uploads.get(uploadId);
    let at = 0;
    if (r) {
      await r.chain;
      while (at < parts.length && at < r.fed.length && r.fed[at] === parts[at]) at++;
    }
    if (at > 0) {
      try {
        return await this.finish(parts, r!.worker, { key: this.key(uploadId), at });
      } catch {
        // the worker lost its state (it exited): read everything back below
      }
    }
    return this.finish(parts, this.pool.leastBusy());
  }

  private async finish(parts: string[], worker: number, base?: JobBase): Promise<string> {
    const job = this.pool.job(worker, base);
    try {
      for (const blob of parts.slice(base?.at ?? 0)) await hashBlob(this.blobs, blob, job);
    } finally {
      await job.end().catch(() => undefined);
    }
    return (await job.end()).toString('hex');
  }

  /** The upload is gone (completed, aborted, swept): free its states. */
  forget(uploadId: string): void {
    const r = this.uploads.get(uploadId);
    if (!r) return;
    this.uploads.delete(uploadId);
    // After any feeding in progress, so a late save does not bring the state back.
    void r.chain.then(() => this.pool.drop(r.worker, this.key(uploadId)));
  }

  clear(): void {
    for (const id of [...this.uploads.keys()]) this.forget(id);
  }
}
