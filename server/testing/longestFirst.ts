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
 * (fileDurations.json, a measured run's slow files), then its size. Groups and projects keep
 * vitest's order (the repository has one project): a non-isolated worker is reused only by
 * the next file of its project.
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
    return [...files].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      return weights.get(b)! - weights.get(a)!;
    });
  }
}
