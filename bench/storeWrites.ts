import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStore } from '../server/store/fileStore.js';
import { type Benchmark, fmt, median } from './lib.js';

async function putLatencyUs(store: FileStore, writes: number): Promise<number> {
  const c = store.collection<{ i: number; pad: string }>('bench');
  const xs: number[] = [];
  for (let i = 0; i < writes; i++) {
    const t = process.hrtime.bigint();
    await c.put(`probe-${i % 20}`, { i, pad: 'x'.repeat(200) });
    xs.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  return median(xs);
}

/** A write's cost must not grow with the state already stored: small store vs large store. */
export const storeWritesBenchmark: Benchmark = {
  name: 'store write cost vs total state',
  target: 'put latency with 20,000 records within 1.5x of the latency with 100 records',
  async run({ quick }) {
    const big = quick ? 5_000 : 20_000;
    const dir = await mkdtemp(join(tmpdir(), 'partner-sim-bench-'));
    try {
      const store = await FileStore.open(dir);
      const c = store.collection<{ i: number; pad: string }>('bench');
      for (let i = 0; i < 100; i++) await c.put(`r${i}`, { i, pad: 'x'.repeat(200) });
      const small = await putLatencyUs(store, 300);
      const batch: Promise<void>[] = [];
      for (let i = 100; i < big; i++) {
        batch.push(c.put(`r${i}`, { i, pad: 'x'.repeat(200) }));
        if (batch.length === 200) await Promise.all(batch.splice(0));
      }
      await Promise.all(batch);
      const large = await putLatencyUs(store, 300);
      await store.close();
      const ratio = large / small;
      return {
        ok: ratio <= 1.5,
        lines: [
          `put with 100 records:    median ${fmt(small)} us`,
          `put with ${big} records: median ${fmt(large)} us (${fmt(ratio, 2)}x the small store)`,
        ],
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};
