import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixedComputation } from '../server/testing/fixedComputation.js';
import { drive, fmt, median } from './lib.js';

/** A fixed workload's seconds on this host now: its CPU-bound part and its loopback part apart. */
export interface HostPace {
  computeS: number;
  loopbackS: number;
}

/** One pass of the fixed workload. */
async function pass(): Promise<HostPace> {
  const t0 = performance.now();
  const block = Buffer.alloc(1 << 20, 7);
  const hash = createHash('sha256');
  for (let i = 0; i < 128; i++) hash.update(block);
  hash.digest();
  const rows = Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `row ${i}`, tags: [i, -i] }));
  JSON.parse(JSON.stringify(rows));
  const computeS = (performance.now() - t0) / 1000;
  // Each request on a new connection: accept, read, write and close, as the suite's clients do.
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const usPerRequest = await drive(`http://127.0.0.1:${port}/`, {}, 500, { keepAlive: false });
    return { computeS, loopbackS: (usPerRequest * 500) / 1e6 };
  } finally {
    server.close();
  }
}

/**
 * The same work every time, so two runs of the suite bench can be told apart by the host's pace
 * rather than by the code: on these machines one code's suite took 203 to 276 s of CPU, and a
 * workload like this one was up to ~20% (compute) and ~60% (loopback requests) slower in the
 * slow spells (issue 33). The suite is both: CPU, and HTTP between processes on one host.
 * Two passes warm up (compile, allocate: a fresh process's first passes took up to twice as
 * long); the medians of the next `passes` are returned.
 */
export async function hostPace(passes = 3): Promise<HostPace> {
  await pass();
  await pass();
  const runs: HostPace[] = [];
  for (let i = 0; i < passes; i++) runs.push(await pass());
  return { computeS: median(runs.map((r) => r.computeS)), loopbackS: median(runs.map((r) => r.loopbackS)) };
}

export const paceLine = (p: HostPace): string =>
  `compute ${fmt(p.computeS, 2)} s, 500 loopback requests ${fmt(p.loopbackS, 2)} s`;

/**
 * The CPU seconds the fixed computation takes in this process (~30 ms here), within ~2% from
 * sample to sample on a quiet host.
 */
function computeCpuS(): number {
  const c0 = process.cpuUsage();
  fixedComputation();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e6;
}

/**
 * The host's pace during a run, which the lines before and after it miss: a slow spell can come
 * and go within one (issue 33). Every `everyMs` this otherwise idle process times a small fixed
 * computation in CPU seconds, not wall time, so the run's own load on the cores does not count,
 * only how fast the host computes. `stop()` ends the sampling and returns the samples. The
 * timer is unref'd: it never keeps the process alive.
 */
export function paceDuring(everyMs = 5000): { stop: () => number[] } {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(computeCpuS()), everyMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      return samples;
    },
  };
}

/** The same computation on a quiet process: warmed up, then the median of five. */
export function quietComputeS(): number {
  computeCpuS();
  computeCpuS();
  return median(Array.from({ length: 5 }, computeCpuS));
}

export const duringLine = (quiet: number, samples: number[]): string =>
  samples.length === 0
    ? 'no samples during the run'
    : `a fixed computation took ${fmt(median(samples) * 1000, 0)} ms of CPU during the run (median of ${samples.length}, ${fmt(Math.min(...samples) * 1000, 0)}-${fmt(Math.max(...samples) * 1000, 0)} ms), ${fmt(quiet * 1000, 0)} ms before it`;
