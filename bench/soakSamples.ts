import { fmt, median } from './lib.js';

const MIB = 2 ** 20;
/** Runs shorter than this hold the heap, not RSS, to the memory limit (see soakReport). */
const SHORT_RUN_MS = 10 * 60_000;

/** One reading of the soaked simulator: counts so far, and its memory and data size. */
export interface Sample {
  /** ms since the traffic began. */
  atMs: number;
  flows: number;
  errors: number;
  /** RSS after collecting until the heap stops shrinking (gcOnSignal.ts): what is kept. */
  rss: number;
  /** RSS as the process stood before those collections: printed, not held to a limit. */
  rssBeforeGc?: number;
  heap: number;
  data: number;
}

/** Issue 45's targets, for the last third of a run against the middle third. */
export interface SoakLimits {
  rssGrowth: number;
  dataGrowth: number;
  throughputFloor: number;
}

const SOAK_LIMITS: SoakLimits = { rssGrowth: 16 * MIB, dataGrowth: 16 * MIB, throughputFloor: 0.8 };

/**
 * The table (one line a window: throughput, and the memory and data size at its end) and the
 * verdict. Growth is the median of the last third's readings less the median of the middle
 * third's: resident memory after a GC still moves by tens of MiB from one reading to the next
 * (V8's old-space pages, which one collection does not always give back), and one reading
 * against another took that noise for growth; a leak moves the whole third.
 */
export function soakReport(
  label: string,
  s: Sample[],
  windows: number,
  runMs: number,
  limits: SoakLimits = SOAK_LIMITS,
): { lines: string[]; ok: boolean } {
  const windowMs = runMs / windows;
  const lines = [`${label}: window  flows/s  errors  RSS MiB  (before GC)  heap MiB  data MiB`];
  const ends: Sample[] = [s[0]!];
  for (let w = 1; w <= windows; w++) {
    const end = [...s].reverse().find((x) => x.atMs <= w * windowMs + 1) ?? s.at(-1)!;
    const prev = ends.at(-1)!;
    ends.push(end);
    const rate = (end.flows - prev.flows) / (Math.max(1, end.atMs - prev.atMs) / 1000);
    lines.push(
      `${label}: ${fmt((w * windowMs) / 60_000, 1).padStart(5)}m  ${fmt(rate, 0).padStart(7)}  ${String(end.errors).padStart(6)}  ${fmt(end.rss / MIB).padStart(7)}  ${fmt((end.rssBeforeGc ?? Number.NaN) / MIB).padStart(11)}  ${fmt(end.heap / MIB).padStart(8)}  ${fmt(end.data / MIB).padStart(8)}`,
    );
  }
  const middle = s.filter((x) => x.atMs > runMs / 3 && x.atMs <= (2 * runMs) / 3);
  const last = s.filter((x) => x.atMs > (2 * runMs) / 3);
  const growth = (pick: (x: Sample) => number) =>
    middle.length && last.length ? median(last.map(pick)) - median(middle.map(pick)) : Number.NaN;
  const rssGrowth = growth((x) => x.rss);
  const rawGrowth = growth((x) => x.rssBeforeGc ?? Number.NaN);
  const heapGrowth = growth((x) => x.heap);
  const dataGrowth = growth((x) => x.data);
  const rate = (a: Sample, b: Sample) => (b.flows - a.flows) / Math.max(1, b.atMs - a.atMs);
  const ratio = rate(ends.at(-2)!, ends.at(-1)!) / rate(ends[0]!, ends[1]!);
  const errors = s.at(-1)!.errors;
  // A short run (CI's two minutes) holds the heap to the limit instead of RSS: the heap's
  // own warm-up (V8's spaces growing to their working size) is not over in two minutes and is
  // not records kept.
  const memory = runMs >= SHORT_RUN_MS ? rssGrowth : heapGrowth;
  const ok =
    memory < limits.rssGrowth &&
    dataGrowth < limits.dataGrowth &&
    ratio >= limits.throughputFloor &&
    errors === 0;
  lines.push(
    `${label}: growth over the last ${fmt(runMs / 3 / 60_000)} min (median of its ${last.length} readings less the middle third's): RSS ${fmt(rssGrowth / MIB)} MiB${runMs >= SHORT_RUN_MS ? ` (limit ${fmt(limits.rssGrowth / MIB, 0)})` : ''}, RSS before GC ${fmt(rawGrowth / MIB)} MiB (printed only), heap ${fmt(heapGrowth / MIB)} MiB${runMs >= SHORT_RUN_MS ? '' : ` (limit ${fmt(limits.rssGrowth / MIB, 0)}: a run under 10 min holds the heap)`}, data ${fmt(dataGrowth / MIB)} MiB (limit ${fmt(limits.dataGrowth / MIB, 0)}); last/first window throughput ${fmt(ratio, 2)}x (floor ${limits.throughputFloor}); errors ${errors}: ${ok ? 'OK' : 'MISSED'}`,
  );
  return { lines, ok };
}
