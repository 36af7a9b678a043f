import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BlobStore, DiskBlobStore, MemoryBlobStore } from '../store/blobStore.js';
import { HashPool } from './hashPool.js';
import { RunningMd5 } from './runningMd5.js';

const md5 = (...bufs: Buffer[]): string => {
  const h = createHash('md5');
  for (const b of bufs) h.update(b);
  return h.digest('hex');
};

async function put(blobs: BlobStore, key: string, bytes: Buffer): Promise<void> {
  const sink = await blobs.sink(key);
  await new Promise<void>((resolve, reject) => {
    sink.on('finish', resolve).on('error', reject);
    // In several writes, as a part arrives.
    for (let i = 0; i < bytes.length; i += 1000) sink.write(bytes.subarray(i, i + 1000));
    sink.end();
  });
}

const pool = new HashPool(2);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'running-md5-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('HashPool', () => {
  it('hashes streamed chunks (across batches, with waits) as createHash does', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const job = pool.job(pool.leastBusy());
    for (let i = 0; i < bytes.length; i += 70_000) await job.update(bytes.subarray(i, i + 70_000));
    expect((await job.end()).toString('hex')).toBe(md5(bytes));
  });

  it('starts a worker only when the started ones are all busy (each costs ~0.1 s of CPU)', async () => {
    const own = new HashPool(4);
    const blobs = new MemoryBlobStore();
    const bytes = [randomBytes(5000), randomBytes(300)];
    // One thing at a time, as a simulator uploading one file: part hashes, a running hash,
    // its completion, then a second upload.
    for (const upload of ['u_a', 'u_b']) {
      const running = new RunningMd5(own, blobs);
      for (const [i, b] of bytes.entries()) {
        const job = own.job(own.leastBusy());
        await job.update(b);
        await job.end();
        await put(blobs, `uploads/${upload}/${i + 1}-a`, b);
        running.stored(upload, i + 1, `uploads/${upload}/${i + 1}-a`);
      }
      expect(await running.fileMd5(upload, [`uploads/${upload}/1-a`, `uploads/${upload}/2-a`])).toBe(
        md5(...bytes),
      );
      running.forget(upload);
    }
    expect(own.started).toBe(1);
    // Two jobs at once: the second gets a worker of its own.
    const [a, b] = [own.job(own.leastBusy()), own.job(own.leastBusy())];
    a.update(bytes[0]!);
    b.update(bytes[1]!);
    expect([(await a.end()).toString('hex'), (await b.end()).toString('hex')]).toEqual([
      md5(bytes[0]!),
      md5(bytes[1]!),
    ]);
    expect(own.started).toBe(2);
  });

  it('fails a job whose file is missing instead of hanging', async () => {
    const job = pool.job(0);
    job.file(join(dir, 'nope'));
    await expect(job.end()).rejects.toThrow(/ENOENT/);
  });
});

describe.each([
  ['disk', () => new DiskBlobStore(join(dir, `b${Math.random()}`))],
  ['memory', () => new MemoryBlobStore()],
])('RunningMd5 (%s blobs)', (_kind, makeStore) => {
  const parts = [randomBytes(4096), randomBytes(4096), randomBytes(4096), randomBytes(1234)];
  const keys = parts.map((_, i) => `uploads/u_1/${i + 1}-a`);

  async function storeAll(blobs: BlobStore, order: number[], running: RunningMd5): Promise<void> {
    for (const i of order) {
      await put(blobs, keys[i]!, parts[i]!);
      running.stored('u_1', i + 1, keys[i]!);
    }
  }

  it('keeps the file MD5 of parts stored out of order, so completion reads nothing back', async () => {
    const blobs = makeStore();
    const running = new RunningMd5(pool, blobs);
    await storeAll(blobs, [2, 0, 3, 1], running);
    expect(await running.fileMd5('u_1', keys)).toBe(md5(...parts));
    // Every part is in the running state: the answer no longer needs the bytes at all.
    await blobs.clear();
    expect(await running.fileMd5('u_1', keys)).toBe(md5(...parts));
  });

  it('restarts from the state before a part that is PUT again', async () => {
    const blobs = makeStore();
    const running = new RunningMd5(pool, blobs);
    await storeAll(blobs, [0, 1, 2, 3], running);
    await running.fileMd5('u_1', keys);
    const again = randomBytes(4096);
    await put(blobs, 'uploads/u_1/2-b', again);
    running.stored('u_1', 2, 'uploads/u_1/2-b');
    await blobs.delete(keys[1]!);
    // Part 1 is not read again: the state after it was kept.
    await blobs.delete(keys[0]!);
    const listed = [keys[0]!, 'uploads/u_1/2-b', keys[2]!, keys[3]!];
    expect(await running.fileMd5('u_1', listed)).toBe(md5(parts[0]!, again, parts[2]!, parts[3]!));
  });

  it('reads back what it lacks: after a restart, and for a list that skips a part', async () => {
    const blobs = makeStore();
    await storeAll(blobs, [0, 1, 2, 3], new RunningMd5(pool, blobs));
    const restarted = new RunningMd5(pool, blobs);
    expect(await restarted.fileMd5('u_1', keys)).toBe(md5(...parts));
    const running = new RunningMd5(pool, blobs);
    await storeAll(blobs, [0, 1, 2, 3], running);
    expect(await running.fileMd5('u_1', [keys[0]!, keys[2]!, keys[3]!])).toBe(
      md5(parts[0]!, parts[2]!, parts[3]!),
    );
  });

  it('fails (rather than answering a wrong MD5) when a listed blob is gone', async () => {
    const blobs = makeStore();
    const running = new RunningMd5(pool, blobs);
    await put(blobs, keys[0]!, parts[0]!);
    running.stored('u_1', 1, keys[0]!);
    await expect(running.fileMd5('u_1', [keys[0]!, keys[1]!])).rejects.toThrow();
    running.forget('u_1');
  });
});
