import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Benchmark, bindingRequest, fmt, spawnSimulator } from './lib.js';
import { average, describeRound, type Round, round } from './loadRounds.js';

/**
 * `serve --https`: the binding GET over TLS (keep-alive connections, the local CA's leaf)
 * against the same GET in plain HTTP on the same port of the same process, in alternating
 * rounds. What TLS costs per request once connections are open; handshakes are not measured.
 */
export const httpsOverheadBenchmark: Benchmark = {
  name: 'HTTPS listener',
  target:
    'binding GET over TLS (serve --https): >= 0.5x the same port in plain HTTP, requests/s (the load client decrypts too), server CPU/request <= 1.6x',
  async run({ quick, flags }) {
    const durationMs = Number(flags['duration-ms'] ?? (quick ? 2000 : 5000));
    const rounds = quick ? 1 : 2;
    const connections = Number(flags.connections ?? 8);
    const dir = await mkdtemp(join(tmpdir(), 'partner-sim-bench-'));
    const caDir = join(dir, 'ca');
    const sim = await spawnSimulator(['--in-memory', '--https', '--ca-dir', caDir], [], { quiet: false });
    try {
      const plainReq = await bindingRequest(sim.url);
      const ca = await readFile(join(caDir, 'partner-sim-ca.pem'), 'utf8');
      const tlsReq = { ...plainReq, url: plainReq.url.replace(/^http:/, 'https:'), ca };
      // Unmeasured first: both paths compiled and warm before either is timed.
      await round([{ pid: sim.child.pid!, req: plainReq }], connections, 1000);
      await round([{ pid: sim.child.pid!, req: tlsReq }], connections, 1000);
      const p: Round[] = [];
      const t: Round[] = [];
      for (let i = 0; i < rounds; i++) {
        p.push(await round([{ pid: sim.child.pid!, req: plainReq }], connections, durationMs));
        t.push(await round([{ pid: sim.child.pid!, req: tlsReq }], connections, durationMs));
      }
      if ([...p, ...t].some((r) => r.bad > 0)) throw new Error('a binding GET was answered with a non-200');
      const [pp, tt] = [average(p), average(t)];
      const ratio = tt.rps / pp.rps;
      const cpu = tt.cpuUs / pp.cpuUs;
      return {
        ok: ratio >= 0.5 && cpu <= 1.6,
        lines: [
          `${connections} keep-alive connections, ${rounds} x ${durationMs / 1000} s each, alternating, one process`,
          describeRound('plain HTTP binding GET:', pp),
          describeRound('HTTPS binding GET:     ', tt),
          `ratio: HTTPS ${fmt(ratio, 2)}x plain HTTP requests/s (target >= 0.5), server CPU ${fmt(cpu, 2)}x per request (target <= 1.6), p99 ${fmt(tt.p99Us / pp.p99Us, 2)}x`,
        ],
      };
    } finally {
      await sim.stop();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
