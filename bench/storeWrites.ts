import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStore } from '../server/store/fileStore.js';
import { type Benchmark, fmt, median } from './lib.js';

// A declared collection (store/collections.ts) with no indexes: only the write path is timed.
type Rec = { i: number; pad: string };
const record = (i: number): Rec => ({ i, pad: 'x'.repeat(200) });

async function fill(store: FileStore, n: number): Promise<void> {
  const c = store.collection<Rec>('transcripts');
  const batch: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    batch.push(c.put(`r${i}`, record(i)));
    if (batch.length === 200) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
}

async function timedPut(store: FileStore, i: number): Promise<number> {
  const t = process.hrtime.bigint();
  await store.collection<Rec>('transcripts').put(`probe-${i % 20}`, record(i));
  return Number(process.hrtime.bigint() - t) / 1000;
}

/**
 * A write's cost must not grow with the state already stored. Two stores, one small and one
 * large, are written alternately in the same loop, so disk and scheduler noise (which swings
 * single-file writes between 0.2 and 0.8 ms here) hits both sides alike.
 */
export const storeWritesBenchmark: Benchmark = {
  name: 'store write cost vs total state',
  target: 'put latency with 20,000 records within 1.5x of the latency with 100 records',
  async run({ quick }) {
    const big = quick ? 5_000 : 20_000;
    const rounds = quick ? 300 : 1000;
    const dirs = [await mkdtemp(join(tmpdir(), 'ps-bench-s-')), await mkdtemp(join(tmpdir(), 'ps-bench-l-'))];
    try {
      const small = await FileStore.open(dirs[0]!);
      const large = await FileStore.open(dirs[1]!);
      await fill(small, 100);
      await fill(large, big);
      const s: number[] = [];
      const l: number[] = [];
      for (let i = 0; i < rounds; i++) {
        s.push(await timedPut(small, i));
        l.push(await timedPut(large, i));
      }
      await small.close();
      await large.close();
      const ratio = median(l) / median(s);
      return {
        ok: ratio <= 1.5,
        lines: [
          `put with 100 records:    median ${fmt(median(s))} us over ${rounds} writes`,
          `put with ${big} records: median ${fmt(median(l))} us (${fmt(ratio, 2)}x the small store, interleaved)`,
        ],
      };
    } finally {
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    }
  },
};
