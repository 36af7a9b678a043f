import { spawn } from 'node:child_process';
import { type Benchmark, fmt, median, spawnSimulator } from './lib.js';

/** Time from spawning a Node process to its "listening" line: bare http server vs simulator. */
function spawnBaseline(): Promise<number> {
  const t0 = performance.now();
  const code =
    "require('http').createServer().listen(0,'127.0.0.1',function(){console.log('listening on http://x');this.close()})";
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => {
    child.stdout.once('data', () => resolve(performance.now() - t0));
  });
}

export const startupBenchmark: Benchmark = {
  name: 'start-up',
  target: 'spawn to listening <= 350 ms (fixtures loaded, in memory and file store)',
  async run({ quick }) {
    const n = quick ? 3 : 7;
    const base: number[] = [];
    const mem: number[] = [];
    for (let i = 0; i < n; i++) {
      base.push(await spawnBaseline());
      const s = await spawnSimulator(['--in-memory']);
      mem.push(s.startupMs);
      await s.stop();
    }
    const baseMs = median(base);
    const memMs = median(mem);
    return {
      ok: memMs <= 350,
      lines: [
        `baseline (node + http.listen): median ${fmt(baseMs)} ms over ${n} runs`,
        `simulator --in-memory:          median ${fmt(memMs)} ms (${fmt(memMs / baseMs, 2)}x baseline, +${fmt(memMs - baseMs)} ms)`,
      ],
    };
  },
};
