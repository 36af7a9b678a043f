import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { fromRoot } from '../core/root.js';

/**
 * The worker's code: a file of its own (md5Worker.mjs), found from the package root, so the
 * sources, dist/ and the bundled CLI (whose module sits elsewhere) all start the same file.
 */
const WORKER_FILE = fromRoot('server', 'storage', 'md5Worker.mjs');

/** Bytes copied into one message (fewer, larger messages cost the main thread less). */
const BATCH = 128 * 1024;
/** Bytes a job may have sent but not yet hashed before `update` asks its caller to wait. */
const IN_FLIGHT = 512 * 1024;

/** Spare batch buffers kept at most (4 jobs' worth in flight). */
const SPARE = (4 * IN_FLIGHT) / BATCH + 4;

interface Waiter {
  slot: Slot;
  settle(md5: Buffer | undefined, error?: Error): void;
  ack(bytes: number): void;
}

interface Slot {
  worker: Worker;
  jobs: number;
}

/** Where a job starts from and whether its end is kept as a running hash's next state. */
export interface JobBase {
  /** Running-hash key (a worker keeps its states). */
  key: string;
  /** Parts already in the state the job starts from (0: a fresh MD5). */
  at: number;
  /** Keep the end state as `key`'s state after `save` parts instead of answering a digest. */
  save?: number;
}

/** One MD5 computed on a worker: feed bytes (or a file the worker reads), then `end`. */
export interface HashJob {
  /** Hash `chunk` (copied, so the caller may reuse it); a promise means: wait before more. */
  update(chunk: Uint8Array): Promise<void> | undefined;
  /** Hash the whole file at `path`, read on the worker. */
  file(path: string): void;
  /** The binary MD5 (empty when the state was saved instead). */
  end(): Promise<Buffer>;
}

/**
 * MD5 off the main thread: a few worker threads (one per core, at most 4) that hash part
 * bodies while the main thread streams them to disk, and keep running whole-file hashes
 * (runningMd5.ts). Each is started when load needs it (the first job, or a job arriving while
 * every started worker has one in progress) and unref'd: an idle process or test never pays
 * for them, one hashing one thing at a time starts one (each costs ~0.1 s of CPU and a heap
 * of its own, issue 33), and they never keep a process alive.
 */
export class HashPool {
  private readonly slots: (Slot | undefined)[];
  private readonly waiters = new Map<number, Waiter>();
  /** Batch buffers the workers handed back, reused so memory stays flat (see IN_FLIGHT). */
  private readonly spare: ArrayBuffer[] = [];
  private nextJob = 1;

  constructor(readonly size = Math.max(1, Math.min(4, availableParallelism()))) {
    this.slots = Array.from({ length: size }, () => undefined);
  }

  /** Workers running now. */
  get started(): number {
    return this.slots.filter(Boolean).length;
  }

  /**
   * The worker for the next job or running hash: a started one with no job in progress, else
   * a new one while the pool may grow, else the one with the fewest jobs.
   */
  leastBusy(): number {
    let best: number | undefined;
    let unstarted: number | undefined;
    for (let i = 0; i < this.size; i++) {
      const jobs = this.slots[i]?.jobs;
      if (jobs === undefined) unstarted ??= i;
      else if (best === undefined || jobs < this.slots[best]!.jobs) best = i;
    }
    if (best === undefined || (this.slots[best]!.jobs > 0 && unstarted !== undefined)) return unstarted!;
    return best;
  }

  job(workerIndex: number, base?: JobBase): HashJob {
    const slot = this.slot(workerIndex);
    const id = this.nextJob++;
    slot.jobs++;
    slot.worker.postMessage({ op: 'start', job: id, key: base?.key, at: base?.at ?? 0 });
    let batch: Uint8Array | undefined;
    let filled = 0;
    let inFlight = 0;
    let resume: (() => void) | undefined;
    let failed: Error | undefined;
    let done: Promise<Buffer> | undefined;
    const result = new Promise<Buffer>((resolve, reject) => {
      this.waiters.set(id, {
        slot,
        settle: (md5, error) => {
          this.waiters.delete(id);
          slot.jobs--;
          failed = error;
          resume?.();
          if (error) reject(error);
          else resolve(md5!);
        },
        ack: (bytes) => {
          inFlight -= bytes;
          if (inFlight <= IN_FLIGHT && resume) {
            const r = resume;
            resume = undefined;
            r();
          }
        },
      });
    });
    result.catch(() => undefined); // surfaced by end()
    const flush = () => {
      if (!batch || filled === 0) return;
      const buf = batch.buffer as ArrayBuffer;
      slot.worker.postMessage({ op: 'data', job: id, buf, len: filled }, [buf]);
      inFlight += filled;
      batch = undefined;
      filled = 0;
    };
    return {
      update: (chunk) => {
        if (failed) return undefined;
        for (let off = 0; off < chunk.length; ) {
          batch ??= new Uint8Array(this.spare.pop() ?? new ArrayBuffer(BATCH));
          const n = Math.min(chunk.length - off, BATCH - filled);
          batch.set(chunk.subarray(off, off + n), filled);
          filled += n;
          off += n;
          if (filled === BATCH) flush();
        }
        if (inFlight <= IN_FLIGHT) return undefined;
        return new Promise<void>((r) => {
          resume = r;
        });
      },
      file: (path) => {
        flush();
        slot.worker.postMessage({ op: 'file', job: id, path });
      },
      end: () => {
        if (!done) {
          flush();
          slot.worker.postMessage({ op: 'end', job: id, key: base?.key, save: base?.save });
          done = result;
        }
        return done;
      },
    };
  }

  /** Forget running-hash states kept after `at` parts (`at` 0: keep none but a fresh start). */
  truncate(workerIndex: number, key: string, at: number): void {
    this.slots[workerIndex]?.worker.postMessage({ op: 'truncate', key, at });
  }

  drop(workerIndex: number, key: string): void {
    this.slots[workerIndex]?.worker.postMessage({ op: 'drop', key });
  }

  private slot(i: number): Slot {
    const existing = this.slots[i];
    if (existing) return existing;
    // A small heap: the worker holds hash states and the batch in hand, nothing more.
    const worker = new Worker(WORKER_FILE, {
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 32 },
    });
    worker.unref();
    const slot: Slot = { worker, jobs: 0 };
    worker.on(
      'message',
      (m: { job: number; ack?: number; buf?: ArrayBuffer; md5?: Uint8Array; error?: string }) => {
        if (m.buf && this.spare.length < SPARE) this.spare.push(m.buf);
        const w = this.waiters.get(m.job);
        if (!w) return;
        if (m.ack !== undefined) w.ack(m.ack);
        else if (m.error !== undefined) w.settle(undefined, new Error(m.error));
        else w.settle(Buffer.from(m.md5!.buffer, m.md5!.byteOffset, m.md5!.byteLength));
      },
    );
    // A worker that dies takes its jobs and running states with it: the jobs fail (callers
    // fall back to reading the bytes again) and the next job starts a fresh worker.
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      if (this.slots[i] === slot) this.slots[i] = undefined;
      for (const w of [...this.waiters.values()]) {
        if (w.slot === slot) w.settle(undefined, new Error('hash worker exited'));
      }
    });
    this.slots[i] = slot;
    return slot;
  }
}

let shared: HashPool | undefined;

/** The process's pool (hashing is stateless across services; running states are keyed). */
export const hashPool = (): HashPool => {
  shared ??= new HashPool();
  return shared;
};
