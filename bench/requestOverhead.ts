import {
  type Benchmark,
  bindingRequest,
  cpuUs,
  fmt,
  type SpawnedSim,
  spawnBareExpress,
  spawnSimulator,
} from './lib.js';
import { type LoadRequest, type LoadResult, load } from './load.js';
import { SOAK_APPS, SoakTraffic } from './soakTraffic.js';

interface Round extends LoadResult {
  /** Server CPU per answered request, µs (from /proc, so the client's work is not counted). */
  cpuUs: number;
}

async function round(
  p: SpawnedSim,
  req: LoadRequest,
  connections: number,
  durationMs: number,
): Promise<Round> {
  const c0 = cpuUs(p.child.pid!);
  const r = await load(req, { connections, durationMs, warmupMs: 500 });
  // The warm-up's requests are in the CPU figure too: count them out by time share.
  const cpu = (cpuUs(p.child.pid!) - c0) * (durationMs / (durationMs + 500));
  return { ...r, cpuUs: cpu / Math.max(1, r.requests) };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const line = (name: string, rs: Round[]) =>
  `${name} ${fmt(mean(rs.map((r) => r.rps)), 0)} req/s, p50 ${fmt(mean(rs.map((r) => r.p50Us)), 0)} us, ` +
  `p99 ${fmt(mean(rs.map((r) => r.p99Us)), 0)} us, server CPU ${fmt(mean(rs.map((r) => r.cpuUs)))} us/req`;

/** Mixed partner traffic (SoakTraffic's flows) from `workers` concurrent loops for `ms`. */
async function mixed(baseUrl: string, workers: number, ms: number): Promise<{ rps: number; errors: number }> {
  const traffic = new SoakTraffic(`${baseUrl}/developer/api`, workers);
  const until = performance.now() + ms;
  let n = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < until) await traffic.flow(n++, SOAK_APPS[n % 2]!);
    }),
  );
  const elapsed = performance.now() - t0;
  traffic.close();
  return { rps: (traffic.stats.requests * 1000) / elapsed, errors: traffic.stats.errors };
}

/**
 * The authenticated binding GET on a simulator with its DEFAULT settings (request validation,
 * the journal, the default log level, its lines read by this process) against a tuned bare
 * Express 5 route answering the same JSON. Both run as child processes under the same
 * closed-loop load, in alternating rounds so a shared machine's drift hits both alike.
 */
export const requestOverheadBenchmark: Benchmark = {
  name: 'per-request overhead',
  target: 'binding GET, default settings: >= 0.85x tuned bare Express 5 requests/s, p99 <= 1.3x',
  async run({ quick, flags }) {
    const durationMs = Number(flags['duration-ms'] ?? (quick ? 2000 : 5000));
    const rounds = quick ? 1 : 2;
    const connections = Number(flags.connections ?? 8);
    const sim = await spawnSimulator(['--in-memory'], [], { quiet: false });
    try {
      const simReq = await bindingRequest(sim.url);
      const body = await (await fetch(simReq.url, { headers: simReq.headers })).text();
      const bare = await spawnBareExpress(`const b=${body};a.get('/x',(q,r)=>r.json(b))`);
      const bareReq = { url: `${bare.url}/x?type=notepro&sn=8810B30227290003`, headers: simReq.headers };
      const b: Round[] = [];
      const s: Round[] = [];
      try {
        for (let i = 0; i < rounds; i++) {
          b.push(await round(bare, bareReq, connections, durationMs));
          s.push(await round(sim, simReq, connections, durationMs));
        }
      } finally {
        await bare.stop();
      }
      if (s.some((r) => r.bad > 0)) throw new Error('the simulator answered the binding GET with a non-200');
      const rps = mean(s.map((r) => r.rps)) / mean(b.map((r) => r.rps));
      const p99 = mean(s.map((r) => r.p99Us)) / mean(b.map((r) => r.p99Us));
      const mix = await mixed(sim.url, connections, durationMs);
      return {
        ok: rps >= 0.85 && p99 <= 1.3 && mix.errors === 0,
        lines: [
          `${connections} connections, ${rounds} x ${durationMs / 1000} s each, alternating`,
          line('tuned bare Express 5, same JSON:', b),
          line('simulator getDeviceBinding:     ', s),
          `ratio: ${fmt(rps, 2)}x requests/s (target >= 0.85), p99 ${fmt(p99, 2)}x (target <= 1.3)`,
          `mixed workload (tokens, binding, presign + part PUT + complete, submit + get transcription): ${fmt(mix.rps, 0)} req/s, ${mix.errors} errors`,
        ],
      };
    } finally {
      await sim.stop();
    }
  },
};
