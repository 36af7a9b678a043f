import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Benchmark, drive, fmt, median, spawnSimulator } from './lib.js';
import { writeRecords } from './seedStore.js';

const CLIENT = 'demo-client-us';
const SECRET = 'demo-secret-us-0000';

/** Resident memory of a process, MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

const task = (i: number): [string, object] => {
  const id = `tr_bench${String(i).padStart(8, '0')}`;
  return [
    id,
    {
      transcription_id: id,
      client_id: CLIENT,
      file_url: `https://example.com/audio/${i}.mp3`,
      params: { language: 'en' },
      created_ms: 1_700_000_000_000 + i,
      source: { kind: 'external' },
    },
  ];
};

const upload = (i: number): [string, object] => {
  const id = `up_bench${String(i).padStart(8, '0')}`;
  return [
    id,
    {
      upload_id: id,
      file_id: `file_bench${String(i).padStart(8, '0')}`,
      client_id: CLIENT,
      sub: 'demo-user-0001',
      filetype: 'mp3',
      filesize: 1_000_000,
      chunk_size: 5_242_880,
      part_count: 1,
      created_ms: 1_700_000_000_000 + i,
      expires_ms: 4_102_444_800_000,
    },
  ];
};

/** A completed file of one part, as completion leaves it: the record and its blob. */
const file = (i: number): [string, object] => {
  const id = `file_bench${String(i).padStart(8, '0')}`;
  const upload = `u_bench${String(i).padStart(8, '0')}`;
  return [
    id,
    {
      file_id: id,
      client_id: CLIENT,
      sub: 'demo-user-0001',
      filetype: 'mp3',
      size: 4,
      md5: '8d777f385d3dfec8815d20f7496026dc',
      etag: '"d8c2eafd90c266e19ab9dcacc479f8af-1"',
      upload_id: upload,
      parts: [{ blob: `uploads/${upload}/1-bench0`, size: 4 }],
      created_ms: 1_700_000_000_000 + i,
    },
  ];
};

/** `n` completed files: records in the file store's format, and each one's blob on disk. */
async function writeFiles(dataDir: string, n: number): Promise<void> {
  await writeRecords(join(dataDir, 'state'), 'files', n, file);
  for (let i = 0; i < n; i += 256) {
    const batch: Promise<void>[] = [];
    for (let j = i; j < Math.min(n, i + 256); j++) {
      const dir = join(dataDir, 'blobs', 'uploads', `u_bench${String(j).padStart(8, '0')}`);
      batch.push(mkdir(dir, { recursive: true }).then(() => writeFile(join(dir, '1-bench0'), 'data')));
    }
    await Promise.all(batch);
  }
}

interface Start {
  /** Spawn to the first authenticated 200 (a binding GET). */
  ms: number;
  rss: number;
  /** Spawn until a listing that needs every record answered (the background load finished). */
  loadedMs: number;
  loadedRss: number;
  /** Binding GET wall µs (sequential) while the background load runs, and after it. */
  duringUs: number;
  afterUs: number;
}

/** Spawn on `dataDir`, time spawn → first authenticated 200, then wait for a full listing. */
async function start(dataDir: string): Promise<Start> {
  const t0 = performance.now();
  const sim = await spawnSimulator(['--data-dir', dataDir]);
  try {
    const api = `${sim.url}/developer/api`;
    const post = async (url: string, headers: Record<string, string>, body?: string) => {
      const r = await fetch(url, { method: 'POST', headers, body });
      if (r.status !== 200) throw new Error(`${url}: ${r.status} ${await r.text()}`);
      return ((await r.json()) as { access_token: string }).access_token;
    };
    const basic = Buffer.from(`${CLIENT}:${SECRET}`).toString('base64');
    const partner = await post(`${api}/oauth/partner/access-token`, { authorization: `Basic ${basic}` });
    const user = await post(
      `${api}/open/partner/users/access-token`,
      { authorization: `Bearer ${partner}`, 'content-type': 'application/json' },
      JSON.stringify({ user_id: 'demo-user-0001' }),
    );
    const binding = `${api}/open/partner/sdk/binding?type=notepro&sn=8810B30227290003`;
    const headers = { authorization: `Bearer ${user}` };
    const r = await fetch(binding, { headers });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`binding GET answered ${r.status}`);
    const ms = performance.now() - t0;
    const rss = rssMiB(sim.child.pid!);
    // The load begins about a second after open: requests meanwhile show what it costs them.
    await new Promise((res) => setTimeout(res, Math.max(0, 1500 - ms)));
    const duringUs = await drive(binding, headers, 500);
    const listing = await fetch(`${sim.url}/__admin/transcriptions?client_id=${CLIENT}`);
    await listing.arrayBuffer();
    if (listing.status !== 200) throw new Error(`transcription listing answered ${listing.status}`);
    const loadedMs = performance.now() - t0;
    const loadedRss = rssMiB(sim.child.pid!);
    return { ms, rss, loadedMs, loadedRss, duringUs, afterUs: await drive(binding, headers, 500) };
  } finally {
    await sim.stop();
  }
}

/**
 * Issue 16 target 3: start-up on a data folder holding 100,000 transcription tasks and 100,000
 * upload sessions, against the same start-up on an empty folder in the same run. The records
 * are read in the background after listening (store/lazyCollection.ts); the time a listing
 * that needs them all waits, and the memory they take, are printed too. Issue 20 item 11: the
 * same with completed files (records and blobs), which the storage recovery walks after
 * listening (storage/recovery.ts), no longer before.
 */
export const startupStoredBenchmark: Benchmark = {
  name: 'start-up with stored records',
  target:
    'spawn to first authenticated 200 with 100k tasks + 100k uploads stored <= 1 s, with 20k completed files <= 1.5x empty; RSS printed',
  async run({ quick, flags }) {
    const n = Number(flags.records ?? (quick ? 20_000 : 100_000));
    const nFiles = Number(flags.files ?? (quick ? 5_000 : 20_000));
    const runs = quick ? 2 : 3;
    const root = await mkdtemp(join(tmpdir(), 'sim-bench-stored-'));
    try {
      // Both folders started once first (fixtures loaded, as a real one); then one is filled.
      const bare = join(root, 'empty');
      const full = join(root, 'full');
      const done = join(root, 'files');
      await start(bare);
      await start(full);
      await start(done);
      const empty: Start[] = [];
      for (let i = 0; i < runs; i++) empty.push(await start(bare));
      const w0 = performance.now();
      await writeRecords(join(full, 'state'), 'transcriptions', n, task);
      await writeRecords(join(full, 'state'), 'uploads', n, upload);
      const writeS = (performance.now() - w0) / 1000;
      const f0 = performance.now();
      await writeFiles(done, nFiles);
      const filesS = (performance.now() - f0) / 1000;
      const stored: Start[] = [];
      const completed: Start[] = [];
      for (let i = 0; i < runs; i++) {
        stored.push(await start(full));
        completed.push(await start(done));
      }
      const e = median(empty.map((s) => s.ms));
      const s = median(stored.map((x) => x.ms));
      const c = median(completed.map((x) => x.ms));
      const mid = (xs: Start[], f: (x: Start) => number) => fmt(median(xs.map(f)));
      return {
        ok: s <= 1000 && c / e <= 1.5,
        lines: [
          `records: ${n} tasks + ${n} uploads (written in ${fmt(writeS)} s)`,
          `empty data folder:  median ${fmt(e)} ms to the first authenticated 200 over ${runs} runs, RSS ${mid(empty, (x) => x.rss)} MiB`,
          `stored records:     median ${fmt(s)} ms (${fmt(s / e, 2)}x empty), RSS ${mid(stored, (x) => x.rss)} MiB`,
          `background load:    every record in memory ${mid(stored, (x) => x.loadedMs / 1000)} s after spawn, RSS then ${mid(stored, (x) => x.loadedRss)} MiB (empty: ${mid(empty, (x) => x.loadedRss)} MiB)`,
          `binding GET while loading: ${mid(stored, (x) => x.duringUs)} us/request, after: ${mid(stored, (x) => x.afterUs)} us (empty folder: ${mid(empty, (x) => x.afterUs)} us)`,
          `completed files:    ${nFiles} files with their blobs (written in ${fmt(filesS)} s): median ${fmt(c)} ms, ratio ${fmt(c / e, 2)}x empty (target <= 1.5x)${c / e <= 1.5 ? '' : ' MISSED'}`,
        ],
      };
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
};
