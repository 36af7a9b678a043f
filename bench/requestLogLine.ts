import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Benchmark, bindingRequest, fmt, type SpawnedSim, spawnSimulatorToNull } from './lib.js';
import { average, describeRound, type Round, round } from './loadRounds.js';

/**
 * What the per-request line costs: the binding GET on three simulators with default settings,
 * one logging as in a terminal (`--log-format pretty`: a readable line per request), one as
 * anywhere else (JSON: a line per request, the default since issue 47), one with the lines
 * off (PARTNER_SIM_ACCESS_LOG=off: at debug, so none). All write to /dev/null, so only the
 * simulator's own formatting and writing is measured. Alternating rounds under the same
 * closed-loop load, in the same run.
 */
export const requestLogLineBenchmark: Benchmark = {
  name: 'per-request log line',
  target: 'binding GET with the terminal line, and with the JSON line: each >= 0.8x requests/s of no line',
  async run({ quick, flags }) {
    const durationMs = Number(flags['duration-ms'] ?? (quick ? 2000 : 5000));
    const rounds = Number(flags.rounds ?? (quick ? 1 : 2));
    const connections = Number(flags.connections ?? 8);
    const dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(join(tmpdir(), 'partner-sim-bench-'))));
    const sims: SpawnedSim[] = [];
    try {
      sims.push(await spawnSimulatorToNull(['--data-dir', dirs[0]!, '--log-format', 'pretty']));
      sims.push(await spawnSimulatorToNull(['--data-dir', dirs[1]!, '--log-format', 'json']));
      sims.push(
        await spawnSimulatorToNull(['--data-dir', dirs[2]!, '--log-format', 'json'], {
          PARTNER_SIM_ACCESS_LOG: 'off',
        }),
      );
      const reqs = await Promise.all(sims.map((s) => bindingRequest(s.url)));
      const results: Round[][] = [[], [], []];
      for (let i = 0; i < rounds; i++)
        for (const k of [2, 0, 1])
          results[k]!.push(
            await round([{ pid: sims[k]!.child.pid!, req: reqs[k]! }], connections, durationMs),
          );
      if (results.flat().some((r) => r.bad > 0)) throw new Error('a binding GET answered a non-200');
      const [pretty, json, none] = results.map(average) as [Round, Round, Round];
      const ratio = (r: Round) => r.rps / none.rps;
      return {
        ok: ratio(pretty) >= 0.8 && ratio(json) >= 0.8,
        lines: [
          `${connections} connections, ${rounds} x ${durationMs / 1000} s each, alternating; stdout to /dev/null`,
          describeRound('no per-request line (access log off):', none),
          describeRound('terminal line (pretty logs):         ', pretty),
          describeRound('JSON line (logs in a pipe):          ', json),
          `ratio: terminal ${fmt(ratio(pretty), 2)}x, JSON ${fmt(ratio(json), 2)}x requests/s of no line (target >= 0.8); CPU ${fmt(pretty.cpuUs - none.cpuUs)} and ${fmt(json.cpuUs - none.cpuUs)} us/req more`,
        ],
      };
    } finally {
      await Promise.all(sims.map((s) => s.stop()));
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    }
  },
};
