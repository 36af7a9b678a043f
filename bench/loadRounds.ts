import { cpuUs, fmt } from './lib.js';
import { type LoadRequest, type LoadResult, load, quantile } from './load.js';
import { SOAK_APPS, SoakTraffic } from './soakTraffic.js';

/** One measured round against one or more server processes, their answers merged. */
export interface Round extends Omit<LoadResult, 'latenciesMs'> {
  /** Server CPU per answered request, µs, summed over the processes (from /proc: the client's work is not counted). */
  cpuUs: number;
  /** CPU per answered request of the other processes watched (the database), µs. */
  otherCpuUs: number;
}

/** A server under load: its process id (for CPU) and the request it is sent. */
export interface Target {
  pid: number;
  req: LoadRequest;
}

const WARMUP_MS = 500;

/**
 * CPU used by a set of processes from now on: the returned function gives µs so far. The set
 * is read again at the end; processes that came meanwhile count from 0, ones gone not at all.
 */
export function cpuMeter(pids: () => number[]): () => number {
  const start = new Map(pids().map((pid) => [pid, cpuUs(pid)]));
  return () => pids().reduce((sum, pid) => sum + Math.max(0, cpuUs(pid) - (start.get(pid) ?? 0)), 0);
}

/**
 * `connections` closed-loop connections spread over the targets (3 over 2 servers: 2 + 1),
 * every target loaded at once; requests/s summed, latencies merged into one p50/p99.
 */
export async function round(
  targets: Target[],
  connections: number,
  durationMs: number,
  others: () => number[] = () => [],
): Promise<Round> {
  const servers = cpuMeter(() => targets.map((t) => t.pid));
  const other = cpuMeter(others);
  const rs = await Promise.all(
    targets.map((t, i) =>
      load(t.req, {
        connections: Math.floor(connections / targets.length) + (i < connections % targets.length ? 1 : 0),
        durationMs,
        warmupMs: WARMUP_MS,
      }),
    ),
  );
  // The warm-up's requests are in the CPU figure too: count them out by time share.
  const share = durationMs / (durationMs + WARMUP_MS);
  const spent = servers() * share;
  const otherSpent = other() * share;
  const lat = rs.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const requests = lat.length;
  return {
    requests,
    bad: rs.reduce((s, r) => s + r.bad, 0),
    rps: rs.reduce((s, r) => s + r.rps, 0),
    p50Us: quantile(lat, 0.5) * 1000,
    p99Us: quantile(lat, 0.99) * 1000,
    cpuUs: spent / Math.max(1, requests),
    otherCpuUs: otherSpent / Math.max(1, requests),
  };
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Rounds averaged field by field. */
export function average(rs: Round[]): Round {
  const m = (f: (r: Round) => number) => mean(rs.map(f));
  return {
    requests: m((r) => r.requests),
    bad: m((r) => r.bad),
    rps: m((r) => r.rps),
    p50Us: m((r) => r.p50Us),
    p99Us: m((r) => r.p99Us),
    cpuUs: m((r) => r.cpuUs),
    otherCpuUs: m((r) => r.otherCpuUs),
  };
}

export const describeRound = (name: string, r: Round): string =>
  `${name} ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50Us, 0)} us, p99 ${fmt(r.p99Us, 0)} us, ` +
  `server CPU ${fmt(r.cpuUs)} us/req${r.otherCpuUs ? ` + PostgreSQL ${fmt(r.otherCpuUs)}` : ''}`;

/**
 * Mixed partner traffic (SoakTraffic's flows) from `workers` concurrent loops for `ms`, the
 * loops spread over the simulators at `baseUrls` (worker w talks to w mod n).
 */
export async function mixed(
  baseUrls: string[],
  workers: number,
  ms: number,
): Promise<{ rps: number; errors: number; samples: string[] }> {
  const traffic = baseUrls.map(
    (u, i) =>
      new SoakTraffic(
        `${u}/developer/api`,
        Math.max(1, Math.floor(workers / baseUrls.length) + (i < workers % baseUrls.length ? 1 : 0)),
      ),
  );
  const until = performance.now() + ms;
  let n = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      const t = traffic[w % traffic.length]!;
      while (performance.now() < until) await t.flow(n++, SOAK_APPS[n % 2]!);
    }),
  );
  const elapsed = performance.now() - t0;
  for (const t of traffic) t.close();
  const requests = traffic.reduce((s, t) => s + t.stats.requests, 0);
  return {
    rps: (requests * 1000) / elapsed,
    errors: traffic.reduce((s, t) => s + t.stats.errors, 0),
    samples: traffic.flatMap((t) => t.stats.samples),
  };
}
