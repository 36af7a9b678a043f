import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PgStore } from '../server/store/postgres/pgStore.js';
import { type Benchmark, fmt, median } from './lib.js';
import { benchDatabase } from './postgres.js';

type Rec = { id: string; owner: { client_id: string }; pad: string };
const rec = (i: number): Rec => ({ id: `r${i}`, owner: { client_id: `c${i % 10}` }, pad: 'x'.repeat(200) });

async function latency(rounds: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await op(i);
    xs.push((performance.now() - t) * 1000);
  }
  return median(xs);
}

/**
 * What one PostgreSQL store operation costs on this machine (loopback): single-row reads and
 * writes, the per-request `sync` when nothing changed, and the blob store's throughput, on a
 * fresh database of the bench's PostgreSQL (postgres.ts).
 */
export const pgStoreBenchmark: Benchmark = {
  name: 'postgres store operations',
  target: 'reports single-row latency (µs, median) and blob MB/s; no target',
  needsPg: true,
  async run(args) {
    const { quick, flags } = args;
    const db = await benchDatabase(args);
    if ('skip' in db) return { lines: [`skipped: ${db.skip}`], ok: true };
    const store = await PgStore.open(db.url, { listen: false });
    try {
      await store.clear();
      const rounds = quick ? 300 : 2000;
      const c = store.collection<Rec>('devices');
      const apps = store.mirrored<Rec>('apps');
      for (let i = 0; i < 100; i++) await c.put(`r${i}`, rec(i));
      const lines = [
        `get             ${fmt(await latency(rounds, (i) => c.get(`r${i % 100}`)))} µs`,
        `put             ${fmt(await latency(rounds, (i) => c.put(`r${i % 100}`, rec(i))))} µs`,
        `insert (new)    ${fmt(await latency(rounds, (i) => c.insert(`n${i}`, { ...rec(i), owner: { client_id: 'new' } })))} µs`,
        `update          ${fmt(await latency(rounds, (i) => c.update(`r${i % 100}`, (cur) => ({ next: { ...cur!, pad: `${i}` }, result: 0 }))))} µs`,
        `findBy (10 rows) ${fmt(await latency(rounds, (i) => c.findBy('owner.client_id', `c${i % 10}`)))} µs`,
        `mirrored put    ${fmt(await latency(rounds, (i) => apps.put(`a${i % 20}`, rec(i))))} µs`,
        `sync (no news)  ${fmt(await latency(rounds, () => store.sync()))} µs`,
      ];
      const blobs = store.blobStore();
      const mib = Number(flags['size-mib'] ?? (quick ? 32 : 128));
      const piece = Buffer.alloc(64 * 1024, 7);
      let t = performance.now();
      await pipeline(
        Readable.from(
          (function* () {
            for (let i = 0; i < mib * 16; i++) yield piece;
          })(),
        ),
        await blobs.sink('files/bench'),
      );
      const inMBs = mib / ((performance.now() - t) / 1000);
      t = performance.now();
      let n = 0;
      for await (const chunk of blobs.open('files/bench')) n += (chunk as Buffer).length;
      const outMBs = n / 1024 / 1024 / ((performance.now() - t) / 1000);
      lines.push(`blob in         ${fmt(inMBs)} MiB/s (${mib} MiB)`, `blob out        ${fmt(outMBs)} MiB/s`);
      await blobs.clear();
      await store.clear();
      return { lines, ok: true };
    } finally {
      await store.close();
      await db.drop();
    }
  },
};
