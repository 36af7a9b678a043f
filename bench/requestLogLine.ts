import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Benchmark, bindingRequest, fmt, type SpawnedSim, spawnSimulatorToNull } from './lib.js';
import { average, describeRound, type Round, round } from './loadRounds.js';

/**
 * What the readable per-request line of a terminal costs: the binding GET on two simulators
 * with default settings, one logging as in a terminal (`--log-format pretty`: a pino-pretty
 * line per request at info), one as anywhere else (JSON, per-request lines at debug, so none).
 * Both write to /dev/null, so only the simulator's own formatting and writing is measured.
 * Alternating rounds under the same closed-loop load, in the same run.
 */
export const requestLogLineBenchmark: Benchmark = {
  name: 'per-request log line',
  target: 'binding GET with the terminal line: >= 0.8x requests/s of no line',
  async run({ quick, flags }) {
    const durationMs = Number(flags['duration-ms'] ?? (quick ? 2000 : 5000));
    const rounds = Number(flags.rounds ?? (quick ? 1 : 2));
    const connections = Number(flags.connections ?? 8);
    const dirs = [
      await mkdtemp(join(tmpdir(), 'partner-sim-bench-')),
      await mkdtemp(join(tmpdir(), 'partner-sim-bench-')),
    ];
    const sims: SpawnedSim[] = [];
    try {
      sims.push(await spawnSimulatorToNull(['--data-dir', dirs[0]!, '--log-format', 'pretty']));
      sims.push(await spawnSimulatorToNull(['--data-dir', dirs[1]!, '--log-format', 'json']));
      const [on, off] = sims as [SpawnedSim, SpawnedSim];
      const [onReq, offReq] = [await bindingRequest(on.url), await bindingRequest(off.url)];
      const with_: Round[] = [];
      const without: Round[] = [];
      for (let i = 0; i < rounds; i++) {
        without.push(await round([{ pid: off.child.pid!, req: offReq }], connections, durationMs));
        with_.push(await round([{ pid: on.child.pid!, req: onReq }], connections, durationMs));
      }
      if ([...with_, ...without].some((r) => r.bad > 0)) throw new Error('a binding GET answered a non-200');
      const [w, wo] = [average(with_), average(without)];
      const ratio = w.rps / wo.rps;
      return {
        ok: ratio >= 0.8,
        lines: [
          `${connections} connections, ${rounds} x ${durationMs / 1000} s each, alternating; stdout to /dev/null`,
          describeRound('no per-request line (JSON logs):', wo),
          describeRound('terminal line (pretty logs):    ', w),
          `ratio: ${fmt(ratio, 2)}x requests/s with the line (target >= 0.8), CPU ${fmt(w.cpuUs - wo.cpuUs)} us/req more`,
        ],
      };
    } finally {
      await Promise.all(sims.map((s) => s.stop()));
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    }
  },
};
