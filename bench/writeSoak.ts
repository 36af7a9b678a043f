import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fromRoot } from '../server/core/root.js';
import { dirBytes } from './dirBytes.js';
import { type BenchArgs, type Benchmark, type BenchResult, spawnSimulator } from './lib.js';
import { benchDatabase } from './postgres.js';
import { procRss, procRssSplit } from './simProcess.js';
import { type Sample, soakReport } from './soakSamples.js';
import { WriteTraffic } from './writeTraffic.js';

/** Windows of the printed table (5 minutes each in the 30-minute run). */
const WINDOWS = 6;
/** Readings per window: the growth is a median of the last third's (soakSamples.ts). */
const READINGS_PER_WINDOW = 8;

/**
 * The per-app bounds a run of `minutes` uses: the defaults for a 30-minute run, smaller ones
 * for a shorter run, so the bounds are reached within its first third as the defaults are in
 * the long one (docs/configuration.md, "What an instance keeps").
 */
function boundFlags(minutes: number): string[] {
  if (minutes >= 30) return [];
  const per = Math.max(50, Math.round(1000 * (minutes / 30)));
  return ['--keep-per-app', String(per)];
}

/** What gcOnSignal.ts wrote after its last collections ({} until it wrote any). */
interface HeapReading {
  seq?: number;
  heapUsed?: number;
  rss?: number;
  rssBeforeGc?: number;
  [k: string]: unknown;
}

async function readHeap(file: string): Promise<HeapReading> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as HeapReading;
  } catch {
    return {};
  }
}

/** Signals the child to collect and waits (up to 10 s) for the reading numbered past `seq`. */
async function collectAndRead(pid: number, file: string, seq: number): Promise<HeapReading> {
  process.kill(pid, 'SIGUSR2');
  const until = performance.now() + 10_000;
  for (;;) {
    await sleep(50);
    const h = await readHeap(file);
    if ((h.seq ?? 0) > seq || performance.now() > until) return h;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A webhook receiver on 127.0.0.1 that answers 200 to everything, bodies drained. */
async function receiver(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, server };
}

/** One store's run: `minutes` of mixed writes from `apps` apps, sampled in WINDOWS windows. */
async function soakOne(
  label: string,
  storeArgs: string[],
  dataBytes: () => Promise<number>,
  opts: { minutes: number; apps: number; connections: number; readings?: string },
): Promise<BenchResult> {
  const heapFile = join(await mkdtemp(join(tmpdir(), 'partner-sim-heap-')), 'heap.json');
  const gcHook = pathToFileURL(fromRoot('dist', 'bench', 'gcOnSignal.js')).href;
  const hook = await receiver();
  const sim = await spawnSimulator(
    [...storeArgs, ...boundFlags(opts.minutes)],
    ['--expose-gc', '--import', gcHook],
    { env: { PARTNER_SIM_BENCH_HEAP_FILE: heapFile } },
  );
  const traffic = new WriteTraffic(sim.url, opts.connections);
  const samples: Sample[] = [];
  try {
    const apps = await traffic.makeApps(opts.apps, `soak-${label}`, hook.url);
    let t0 = performance.now();
    let seq = 0;
    const sample = async (): Promise<void> => {
      const heap = await collectAndRead(sim.child.pid!, heapFile, seq);
      seq = heap.seq ?? seq;
      const reading: Sample = {
        atMs: performance.now() - t0,
        flows: traffic.stats.flows,
        errors: traffic.stats.errors,
        rss: await procRss(sim.child.pid!),
        rssBeforeGc: heap.rssBeforeGc ?? 0,
        heap: heap.heapUsed ?? 0,
        data: await dataBytes(),
      };
      samples.push(reading);
      // `--readings <file>`: every reading whole (V8's spaces, external memory, the kernel's
      // split of RSS), one JSON line each, to tell what moves RSS.
      if (opts.readings) {
        const split = await procRssSplit(sim.child.pid!);
        await appendFile(opts.readings, `${JSON.stringify({ label, ...reading, ...split, v8: heap })}\n`);
      }
    };
    const runMs = opts.minutes * 60_000;
    t0 = performance.now();
    await sample();
    let n = 0;
    const worker = async () => {
      while (performance.now() - t0 < runMs) {
        const i = n++;
        await traffic.flow(i, apps[i % apps.length]!);
      }
    };
    const workers = Array.from({ length: opts.connections }, worker);
    const every = runMs / WINDOWS / READINGS_PER_WINDOW;
    for (let k = 1; k <= WINDOWS * READINGS_PER_WINDOW; k++) {
      await sleep(Math.max(0, k * every - (performance.now() - t0)));
      await sample();
    }
    await Promise.all(workers);
  } finally {
    traffic.close();
    hook.server.close();
    await sim.stop();
    await rm(join(heapFile, '..'), { recursive: true, force: true });
  }
  const r = soakReport(label, samples, WINDOWS, opts.minutes * 60_000);
  r.lines.push(...traffic.stats.samples.map((m) => `${label}: first errors: ${m}`));
  return r;
}

/**
 * Issue 45: 30 minutes of mixed writes at full speed from several apps on the file store and
 * on PostgreSQL, never resetting anything; RSS, heap, data size and throughput per window.
 * `--minutes 2` is CI's version, with the bounds scaled down (boundFlags).
 */
export const writeSoakBenchmark: Benchmark = {
  name: 'write soak',
  target:
    'RSS growth over the last third < 16 MiB, data bounded, last window ≥ 0.8× the first, on both stores',
  needsPg: true,
  async run(args: BenchArgs): Promise<BenchResult> {
    const minutes = Number(args.flags.minutes ?? (args.quick ? 2 : 30));
    const opts = {
      minutes,
      apps: Number(args.flags.apps ?? 4),
      connections: Number(args.flags.connections ?? 16),
      readings: args.flags.readings,
    };
    const lines: string[] = [];
    let ok = true;
    const only = args.flags.store;
    if (only !== 'postgres') {
      const dir = await mkdtemp(join(tmpdir(), 'partner-sim-wsoak-'));
      try {
        const r = await soakOne('file', ['--data-dir', dir], () => dirBytes(dir), opts);
        lines.push(...r.lines);
        ok &&= r.ok;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    if (only !== 'file') {
      const db = await benchDatabase(args);
      if ('skip' in db) lines.push(`postgres: skipped: ${db.skip}`);
      else {
        try {
          const size = await databaseBytes(db.url);
          const r = await soakOne('postgres', ['--store', db.url], size, opts);
          lines.push(...r.lines);
          ok &&= r.ok;
        } finally {
          await db.drop();
        }
      }
    }
    return { lines, ok };
  },
};

/** The database's size on disk, as PostgreSQL reports it. */
async function databaseBytes(url: string): Promise<() => Promise<number>> {
  const { default: pg } = await import('pg');
  return async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = await c.query<{ n: string }>('SELECT pg_database_size(current_database())::text AS n');
      return Number(r.rows[0]!.n);
    } finally {
      await c.end();
    }
  };
}
