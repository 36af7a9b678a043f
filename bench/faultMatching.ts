import { type Benchmark, bindingRequest, drive, fmt, median, userToken } from './lib.js';
import { load } from './load.js';
import { benchDatabase } from './postgres.js';
import { cloneRecords } from './seedStore.js';
import { SOAK_APPS } from './soakTraffic.js';
import { type BenchStore, type Fleet, startFleet, tempFileStore } from './storeFleet.js';

const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`POST ${url}: ${r.status} ${await r.text()}`);
  return r.json() as Promise<{ access_token: string }>;
};

/**
 * `each` transcription tasks and `each` upload sessions for each of the two fixture apps,
 * through the partner API as a client would make them.
 */
async function addRecords(url: string, each: number): Promise<void> {
  const api = `${url}/developer/api`;
  for (const app of SOAK_APPS) {
    const basic = Buffer.from(`${app.client_id}:${app.secret_key}`).toString('base64');
    const user = await userToken(url, basic, 'bench-user-0001');
    const json = { 'content-type': 'application/json' };
    const opts = { connections: 4, durationMs: 60_000, warmupMs: 0, total: each };
    const tasks = await load(
      {
        url: `${api}/open/partner/ai/transcriptions/`,
        method: 'POST',
        headers: { ...json, 'x-client-id': app.client_id, 'x-client-api-key': app.api_key },
        body: JSON.stringify({ file_url: 'https://example.com/bench/a.mp3' }),
      },
      opts,
    );
    const uploads = await load(
      {
        url: `${api}/open/partner/files/upload/generate-presigned-urls`,
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${user}` },
        body: JSON.stringify({ filesize: 1024, filetype: 'mp3' }),
      },
      opts,
    );
    if (tasks.bad + uploads.bad > 0) throw new Error(`${tasks.bad + uploads.bad} records refused`);
  }
}

/** A rule on the binding query scoped to another app: it can never match the demo app's query. */
const addForeignRule = (url: string) =>
  post(`${url}/__admin/faults`, {
    operation: 'getDeviceBinding',
    status: 503,
    match: { client_id: 'other-partner-us' },
  });

/**
 * A simulator on `store` holding `records` records and `rules` fault rules of another app: a
 * few of each made through the API, the rest copied from them straight into the stopped
 * simulator's store (seedStore.ts), then the simulator started again on it.
 */
async function loadedSimulator(store: BenchStore, records: number, rules: number) {
  const t0 = performance.now();
  const first = await startFleet(store);
  const each = 2;
  try {
    await addRecords(first.urls[0]!, each);
    await addForeignRule(first.urls[0]!);
  } finally {
    await first.stop();
  }
  const made = each * 2 * SOAK_APPS.length;
  const copyMs = await cloneRecords(store, {
    transcriptions: Math.ceil((records - made) / 2),
    uploads: Math.floor((records - made) / 2),
    faults: rules - 1,
  });
  const fleet = await startFleet(store);
  // The file store reads big collections in the background after start-up: a listing of each
  // waits for its load, so the measurement sees the steady state (start-up is target 3's).
  for (const col of ['uploads', 'transcriptions']) {
    const r = await fetch(`${fleet.urls[0]}/__admin/${col}?client_id=${SOAK_APPS[0].client_id}`);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`listing ${col} answered ${r.status}`);
  }
  return { fleet, seededMs: performance.now() - t0, copyMs };
}

/**
 * The binding query of the demo app on an empty simulator (a) and on one holding the records
 * and rules (b), same store: sequential requests in alternating rounds (ABBA, so neither
 * always runs right after the other and drift hits both alike); the medians are compared.
 */
async function compare(
  a: Fleet,
  b: Fleet,
  n: number,
  rounds: number,
): Promise<{ base: number; loaded: number }> {
  const ra = await bindingRequest(a.urls[0]!);
  const rb = await bindingRequest(b.urls[0]!);
  const blocked = await fetch(rb.url, { headers: rb.headers });
  if (blocked.status !== 200) throw new Error(`binding with foreign rules answered ${blocked.status}`);
  await drive(ra.url, ra.headers, n);
  await drive(rb.url, rb.headers, n);
  const base: number[] = [];
  const loaded: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) base.push(await drive(ra.url, ra.headers, n));
    loaded.push(await drive(rb.url, rb.headers, n));
    if (r % 2 === 1) base.push(await drive(ra.url, ra.headers, n));
  }
  return { base: median(base), loaded: median(loaded) };
}

/**
 * Issue 16 target 5 on every store: stored state and fault rules of other apps cost nothing
 * to a request. The embedded file store and PostgreSQL, each against an empty instance of the
 * same store. (The memory store is the file store's in-memory half: the same collections.)
 */
export const faultMatchingBenchmark: Benchmark = {
  name: 'fault matching',
  target:
    'binding GET with 100,000 records and 10,000 rules of another app: <= 1.2x an empty instance, file store and PostgreSQL',
  needsPg: true,
  async run(args) {
    const { quick, flags } = args;
    const rules = Number(flags.rules ?? 10_000);
    const records = Number(flags.records ?? (quick ? 10_000 : 100_000));
    const n = quick ? 500 : 2000;
    const rounds = quick ? 3 : 5;
    const lines: string[] = [];
    let ok = true;
    for (const kind of ['file', 'postgres'] as const) {
      const made: Array<{ store: BenchStore; drop: () => Promise<void> }> = [];
      const fleets: Fleet[] = [];
      try {
        for (let i = 0; i < 2; i++) {
          if (kind === 'file') made.push(await tempFileStore());
          else {
            const db = await benchDatabase(args);
            if ('skip' in db) {
              lines.push(`PostgreSQL: skipped: ${db.skip}`);
              break;
            }
            made.push({ store: { kind, url: db.url }, drop: db.drop });
          }
        }
        if (made.length < 2) continue;
        fleets.push(await startFleet(made[0]!.store));
        const loaded = await loadedSimulator(made[1]!.store, records, rules);
        fleets.push(loaded.fleet);
        const r = await compare(fleets[0]!, fleets[1]!, n, rounds);
        const ratio = r.loaded / r.base;
        ok &&= ratio <= 1.2;
        const name = kind === 'file' ? 'file store' : 'PostgreSQL';
        lines.push(
          `${name}: ${records} records + ${rules} rules of another app stored in ${fmt(loaded.seededMs / 1000)} s ` +
            `(${kind === 'file' ? 'copies written as record files' : 'copied in SQL'} in ${fmt(loaded.copyMs / 1000)} s)`,
          `  empty instance:            ${fmt(r.base)} us/req (median of ${rounds} x ${n} sequential)`,
          `  with records and rules:    ${fmt(r.loaded)} us/req`,
          `  ratio: ${fmt(ratio, 2)}x (target <= 1.2)${ratio <= 1.2 ? '' : ' MISSED'}`,
        );
      } finally {
        await Promise.all(fleets.map((f) => f.stop()));
        await Promise.all(made.map((m) => m.drop()));
      }
    }
    return { ok, lines };
  },
};
