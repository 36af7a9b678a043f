import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { fromRoot } from '../core/root.js';

/** Where `npm run bench -- --only suite --write-durations` keeps each slow file's seconds. */
export const DURATIONS_FILE = fromRoot('server', 'testing', 'fileDurations.json');

function recorded(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/**
 * Longest files first, so the run does not end with one worker on a 30 s file while the other
 * idles. vitest's own sequencer does this from its results cache, which a fresh clone (CI)
 * does not have: there it ran the larger files first, and the slowest (contract runs in child
 * processes, Chromium) are small. Without a cached duration a file's recorded one is used
 * (fileDurations.json, a measured run's slow files), then its size.
 *
 * A non-isolated worker is reused only by the next file of its project, and each new worker
 * imports its project's modules again (about 2 s, while the main process transforms them). So
 * the small projects' files (contracts, sdk) come right after the largest project's longest
 * files, one per worker but one: while those run, the last worker runs the small projects one
 * after the other, one worker start each instead of one per worker, and their files, which
 * mostly wait on browsers and timers, run beside busy files instead of beside each other.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const known = recorded();
    const weight = (spec: TestSpecification): number => {
      const path = relative(this.ctx.config.root, spec.moduleId);
      const key = `${spec.project.name}:${path}`;
      const cached = cache.getFileTestResults(key);
      if (cached?.failed) return Number.POSITIVE_INFINITY;
      if (cached) return cached.duration / 1000;
      // Unknown files weigh by size: ~1 s per 10 kB is roughly what the suite shows.
      return known[path] ?? (cache.getFileStats(key)?.size ?? 0) / 10_000;
    };
    const weights = new Map(files.map((f) => [f, weight(f)]));
    const groups = new Map<number, TestSpecification[]>();
    for (const f of files) {
      const g = f.project.config.sequence.groupOrder;
      groups.set(g, [...(groups.get(g) ?? []), f]);
    }
    return [...groups.keys()]
      .sort((a, b) => a - b)
      .flatMap((g) => arrange(groups.get(g)!, (f) => weights.get(f)!, this.ctx.config.maxWorkers - 1));
  }
}

/** One group's files: the largest project's `lead` longest, the other projects' files, the rest. */
export function arrange<T extends { project: { name: string } }>(
  files: T[],
  weight: (f: T) => number,
  lead: number,
): T[] {
  const byProject = new Map<string, T[]>();
  for (const f of files) byProject.set(f.project.name, [...(byProject.get(f.project.name) ?? []), f]);
  const longest = (list: T[]) => [...list].sort((a, b) => weight(b) - weight(a));
  const names = [...byProject.keys()].sort(
    (a, b) => byProject.get(b)!.length - byProject.get(a)!.length || (a < b ? -1 : 1),
  );
  const [largest, ...small] = names.map((n) => longest(byProject.get(n)!));
  if (!largest) return [];
  const first = Math.max(1, lead);
  return [...largest.slice(0, first), ...small.flat(), ...largest.slice(first)];
}
