import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
