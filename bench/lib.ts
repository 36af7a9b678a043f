import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fromRoot } from '../server/core/root.js';

/** One benchmark: measures the simulator and a baseline in the same run, prints a ratio. */
export interface Benchmark {
  name: string;
  /** What the numbers must show, as the issue states it. */
  target: string;
  run(args: BenchArgs): Promise<BenchResult>;
}

export interface BenchArgs {
  /** Smaller workloads for a quick check (`--quick`). */
  quick: boolean;
  /** Free-form `--key value` flags, e.g. `--size-mib 64`. */
  flags: Record<string, string>;
}

export interface BenchResult {
  /** Lines to print: measurements, the baseline, the ratio. */
  lines: string[];
  /** Whether the target was met. */
  ok: boolean;
}

export const fmt = (n: number, digits = 1): string => n.toFixed(digits);

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export interface SpawnedSim {
  child: ChildProcess;
  url: string;
  /** ms from spawn to the "listening" line. */
  startupMs: number;
  stop(): Promise<void>;
}

/**
 * Start the built simulator (`dist/server/cli.js serve`) as a child process on a free port;
 * `nodeArgs` go to node itself (e.g. `--expose-gc`).
 */
export function spawnSimulator(
  args: string[] = ['--in-memory'],
  nodeArgs: string[] = [],
): Promise<SpawnedSim> {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      fromRoot('dist', 'server', 'cli.js'),
      'serve',
      '--port',
      '0',
      '--log-level',
      'silent',
      ...args,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code} before listening: ${out}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      child.removeAllListeners('exit');
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({
        child,
        url: m[1]!,
        startupMs: performance.now() - t0,
        stop: () =>
          new Promise<void>((res) => {
            child.once('exit', () => res());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** `n` sequential keep-alive requests; returns wall µs per request. */
export async function drive(url: string, headers: Record<string, string>, n: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, { headers, agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await once();
  agent.destroy();
  return ((performance.now() - t0) * 1000) / n;
}
