import { describe, expect, it } from 'vitest';
import { type Sample, soakReport } from './soakSamples.js';

const MIB = 2 ** 20;
const RUN = 30 * 60_000;

/** 48 readings over RUN ms at 10 flows a ms; `rss`, `data` and `rate` by reading index. */
function series(
  rss: (i: number) => number,
  data: (i: number) => number = () => 10 * MIB,
  rate = (_i: number) => 10,
) {
  const s: Sample[] = [];
  let flows = 0;
  for (let i = 0; i <= 48; i++) {
    const atMs = (i * RUN) / 48;
    if (i > 0) flows += rate(i) * (RUN / 48);
    s.push({ atMs, flows, errors: 0, rss: rss(i), heap: 20 * MIB, data: data(i) });
  }
  return s;
}

describe('soakReport', () => {
  it('passes a flat run whose single readings jump by tens of MiB (allocator noise)', () => {
    const r = soakReport(
      'file',
      series((i) => (200 + (i % 5 === 0 ? 35 : 0)) * MIB),
      6,
      RUN,
    );
    expect(r.ok).toBe(true);
    expect(r.lines).toHaveLength(8);
    expect(r.lines.at(-1)).toMatch(/RSS 0\.0 MiB/);
  });

  it('misses a run whose memory keeps growing (a leak moves the whole third)', () => {
    const r = soakReport(
      'file',
      series((i) => (150 + i * 2) * MIB),
      6,
      RUN,
    );
    expect(r.ok).toBe(false);
    expect(r.lines.at(-1)).toMatch(/RSS 32\.0 MiB \(limit 16\).*MISSED/);
  });

  it('misses a run whose data keeps growing or whose throughput falls under 0.8x', () => {
    expect(
      soakReport(
        'pg',
        series(
          () => 150 * MIB,
          (i) => i * 2 * MIB,
        ),
        6,
        RUN,
      ).ok,
    ).toBe(false);
    expect(
      soakReport(
        'pg',
        series(
          () => 150 * MIB,
          undefined,
          (i) => (i > 40 ? 7 : 10),
        ),
        6,
        RUN,
      ).ok,
    ).toBe(false);
    expect(
      soakReport(
        'pg',
        series(
          () => 150 * MIB,
          undefined,
          (i) => (i > 40 ? 9 : 10),
        ),
        6,
        RUN,
      ).ok,
    ).toBe(true);
  });

  it('holds a short run (under 10 minutes) to its heap, not to RSS still warming up', () => {
    const rising = series((i) => (150 + i * 2) * MIB).map((x) => ({ ...x, atMs: x.atMs / 15 }));
    expect(soakReport('file', rising, 6, RUN / 15).ok).toBe(true);
    const leaking = rising.map((x, i) => ({ ...x, heap: (20 + i) * MIB }));
    expect(soakReport('file', leaking, 6, RUN / 15).ok).toBe(false);
  });

  it('prints the growth of RSS before the collections but holds only the collected RSS', () => {
    const s = series(() => 150 * MIB).map((x, i) => ({ ...x, rssBeforeGc: (200 + i * 2) * MIB }));
    const r = soakReport('file', s, 6, RUN);
    expect(r.ok).toBe(true);
    expect(r.lines.at(-1)).toMatch(/RSS 0\.0 MiB \(limit 16\), RSS before GC 32\.0 MiB \(printed only\)/);
    expect(r.lines[1]).toMatch(/ 150\.0 +216\.0 /);
  });

  it('misses a run with errors', () => {
    const s = series(() => 150 * MIB);
    s.at(-1)!.errors = 1;
    expect(soakReport('file', s, 6, RUN).ok).toBe(false);
  });
});
