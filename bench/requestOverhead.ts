import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Benchmark, bindingRequest, fmt, spawnBareExpress, spawnSimulator } from './lib.js';
import { average, describeRound, mixed, type Round, round } from './loadRounds.js';

/**
 * The authenticated binding GET on a simulator with its DEFAULT settings (the embedded file
 * store in a data folder of its own, request validation, the journal, the default log level,
 * its lines read by this process) against a tuned bare
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
    const dataDir = await mkdtemp(join(tmpdir(), 'partner-sim-bench-'));
    const sim = await spawnSimulator(['--data-dir', dataDir], [], { quiet: false });
    try {
      const simReq = await bindingRequest(sim.url);
      const body = await (await fetch(simReq.url, { headers: simReq.headers })).text();
      const bare = await spawnBareExpress(`const b=${body};a.get('/x',(q,r)=>r.json(b))`);
      const bareReq = { url: `${bare.url}/x?type=notepro&sn=8810B30227290003`, headers: simReq.headers };
      const b: Round[] = [];
      const s: Round[] = [];
      try {
        for (let i = 0; i < rounds; i++) {
          b.push(await round([{ pid: bare.child.pid!, req: bareReq }], connections, durationMs));
          s.push(await round([{ pid: sim.child.pid!, req: simReq }], connections, durationMs));
        }
      } finally {
        await bare.stop();
      }
      if (s.some((r) => r.bad > 0)) throw new Error('the simulator answered the binding GET with a non-200');
      const [bb, ss] = [average(b), average(s)];
      const rps = ss.rps / bb.rps;
      const p99 = ss.p99Us / bb.p99Us;
      const mix = await mixed([sim.url], connections, durationMs);
      return {
        ok: rps >= 0.85 && p99 <= 1.3 && mix.errors === 0,
        lines: [
          `${connections} connections, ${rounds} x ${durationMs / 1000} s each, alternating`,
          describeRound('tuned bare Express 5, same JSON:', bb),
          describeRound('simulator getDeviceBinding:     ', ss),
          `ratio: ${fmt(rps, 2)}x requests/s (target >= 0.85), p99 ${fmt(p99, 2)}x (target <= 1.3)`,
          `mixed workload (tokens, binding, presign + part PUT + complete, submit + get transcription): ${fmt(mix.rps, 0)} req/s, ${mix.errors} errors`,
        ],
      };
    } finally {
      await sim.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};
