import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * The worker's code. A string run with `eval`, so the same code runs from dist/ and under
 * vitest (which cannot start a worker from a .ts file). It holds hashes in progress (`jobs`)
 * and, per running-hash key, the MD5 state after each fed part (`states[key][n]` = after n
 * parts): a copy of the state before a part is where a replaced part restarts from.
 * Files are read synchronously: this thread does nothing else, and its messages stay in order.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { openSync, readSync, closeSync } = require('node:fs');
const jobs = new Map();
const states = new Map();
const buf = Buffer.allocUnsafe(1 << 20);
parentPort.on('message', (m) => {
  try {
    if (m.op === 'start') {
      const base = m.at > 0 ? states.get(m.key)?.[m.at] : undefined;
      if (m.at > 0 && !base) throw new Error('no running MD5 state ' + m.key + '@' + m.at);
      jobs.set(m.job, base ? base.copy() : createHash('md5'));
    } else if (m.op === 'data') {
      jobs.get(m.job)?.update(new Uint8Array(m.buf, 0, m.len));
      parentPort.postMessage({ job: m.job, ack: m.len, buf: m.buf }, [m.buf]);
    } else if (m.op === 'file') {
      const h = jobs.get(m.job);
      if (!h) return;
      const fd = openSync(m.path, 'r');
      try {
        for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) h.update(buf.subarray(0, n));
      } finally {
        closeSync(fd);
      }
    } else if (m.op === 'end') {
      const h = jobs.get(m.job);
      if (!h) throw new Error('hash job failed');
      jobs.delete(m.job);
      if (m.save !== undefined) {
        let s = states.get(m.key);
        if (!s) states.set(m.key, (s = []));
        s.length = m.save;
        s[m.save] = h;
        parentPort.postMessage({ job: m.job, md5: new Uint8Array(0) });
      } else {
        parentPort.postMessage({ job: m.job, md5: h.digest() });
      }
    } else if (m.op === 'truncate') {
      const s = states.get(m.key);
      if (s && s.length > m.at + 1) s.length = m.at + 1;
    } else if (m.op === 'drop') {
      states.delete(m.key);
    }
  } catch (e) {
    if (m.job === undefined) return;
    jobs.delete(m.job);
    parentPort.postMessage({ job: m.job, error: String(e && e.message) });
  }
});
`;

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
 * (runningMd5.ts). Started on first use and unref'd, so an idle process or test never pays
 * for them and they never keep a process alive.
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

  /**
   * The worker with the fewest jobs in progress (for part hashes, which keep no state); ties
   * go to the last, as running hashes are handed out from the first (RunningMd5).
   */
  leastBusy(): number {
    let best = this.size - 1;
    for (let i = best - 1; i >= 0; i--) {
      if ((this.slots[i]?.jobs ?? 0) < (this.slots[best]?.jobs ?? 0)) best = i;
    }
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
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
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
