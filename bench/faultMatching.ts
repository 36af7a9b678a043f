import {
  type Benchmark,
  bindingRequest,
  drive,
  fmt,
  median,
  type SpawnedSim,
  spawnSimulator,
  userToken,
} from './lib.js';
import { load } from './load.js';
import { SOAK_APPS } from './soakTraffic.js';

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
 * `count` stored records, half transcription tasks and half upload sessions, split between
 * the two fixture apps: written through the partner API as a client would, 32 at a time.
 */
async function addRecords(sim: SpawnedSim, count: number): Promise<void> {
  const api = `${sim.url}/developer/api`;
  for (const app of SOAK_APPS) {
    const basic = Buffer.from(`${app.client_id}:${app.secret_key}`).toString('base64');
    const user = await userToken(sim.url, basic, 'bench-user-0001');
    const each = Math.floor(count / 4);
    const json = { 'content-type': 'application/json' };
    const tasks = await load(
      {
        url: `${api}/open/partner/ai/transcriptions/`,
        method: 'POST',
        headers: { ...json, 'x-client-id': app.client_id, 'x-client-api-key': app.api_key },
        body: JSON.stringify({ file_url: 'https://example.com/bench/a.mp3' }),
      },
      { connections: 32, durationMs: 600_000, warmupMs: 0, total: each },
    );
    const uploads = await load(
      {
        url: `${api}/open/partner/files/upload/generate-presigned-urls`,
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${user}` },
        body: JSON.stringify({ filesize: 1024, filetype: 'mp3' }),
      },
      { connections: 32, durationMs: 600_000, warmupMs: 0, total: each },
    );
    if (tasks.bad + uploads.bad > 0) throw new Error(`${tasks.bad + uploads.bad} records refused`);
  }
}

/** `count` rules on the binding query, every one scoped to another app: none can match. */
async function addForeignRules(sim: SpawnedSim, count: number): Promise<void> {
  const rule = { operation: 'getDeviceBinding', status: 503, match: { client_id: 'other-partner-us' } };
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, () => post(`${sim.url}/__admin/faults`, rule)),
    );
  }
}

/**
 * Stored state and fault rules of other apps cost nothing to a request: the binding query of
 * the demo app on a simulator holding 100,000 records and 10,000 rules scoped to another app,
 * against the same query on an empty simulator. Two child processes, measured in alternating rounds so
 * drift of a shared machine hits both alike; the medians are compared.
 */
export const faultMatchingBenchmark: Benchmark = {
  name: 'fault matching',
  target: 'binding GET with 100,000 records and 10,000 rules of another app: <= 1.2x an empty instance',
  async run({ quick, flags }) {
    const rules = Number(flags.rules ?? 10_000);
    const records = Number(flags.records ?? (quick ? 10_000 : 100_000));
    const n = quick ? 500 : 2000;
    const rounds = quick ? 3 : 5;
    const [plain, loaded] = [await spawnSimulator(), await spawnSimulator()];
    try {
      const t0 = performance.now();
      await addRecords(loaded, records);
      const seeded = performance.now() - t0;
      await addForeignRules(loaded, rules);
      const a = await bindingRequest(plain.url);
      const b = await bindingRequest(loaded.url);
      const blocked = await fetch(b.url, { headers: b.headers });
      if (blocked.status !== 200) throw new Error(`binding with foreign rules answered ${blocked.status}`);
      await drive(a.url, a.headers, n);
      await drive(b.url, b.headers, n);
      const base: number[] = [];
      const withRules: number[] = [];
      for (let r = 0; r < rounds; r++) {
        // ABBA order: neither simulator always runs right after the other.
        if (r % 2 === 0) base.push(await drive(a.url, a.headers, n));
        withRules.push(await drive(b.url, b.headers, n));
        if (r % 2 === 1) base.push(await drive(a.url, a.headers, n));
      }
      const ratio = median(withRules) / median(base);
      return {
        ok: ratio <= 1.2,
        lines: [
          `${records} records written in ${fmt(seeded / 1000)} s (tasks and upload sessions of both fixture apps)`,
          `empty instance:                         ${fmt(median(base))} us/req (median of ${rounds} x ${n})`,
          `${records} records + ${rules} rules of another app: ${fmt(median(withRules))} us/req`,
          `ratio: ${fmt(ratio, 2)}x (target <= 1.2)`,
        ],
      };
    } finally {
      await plain.stop();
      await loaded.stop();
    }
  },
};
