import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fromRoot } from '../server/core/root.js';
import { DURATIONS_FILE } from '../server/testing/longestFirst.js';
import { duringLine, hostPace, paceDuring, paceLine, quietComputeS } from './hostPace.js';
import { type Benchmark, fmt } from './lib.js';

const TARGET_S = 150;

interface JsonReport {
  numTotalTests: number;
  numFailedTests: number;
  testResults: { name: string; startTime: number; endTime: number }[];
}

/** CPU seconds of this process's waited-for children (and theirs), from /proc (Linux). */
async function childCpuSeconds(): Promise<number | undefined> {
  try {
    // After the command name the line continues at field 3: cutime and cstime are fields 16, 17.
    const stat = (await readFile('/proc/self/stat', 'utf8')).split(') ')[1]!.split(' ');
    return (Number(stat[13]) + Number(stat[14])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * `npm test` as a fresh clone runs it, timed from outside: its build of dist/ (pretest, forced
 * here), then the same vitest run with the JSON reporter: wall time, the CPU time of everything
 * the run started (PostgreSQL, Chromium, simulators), and the ten slowest files. The figure is
 * tracked here rather than asserted in a test.
 */
export const suiteTimeBenchmark: Benchmark = {
  name: 'test suite',
  target: `npm test from a fresh clone (its build of dist/, then the vitest run): <= ${TARGET_S} s on 2 cores (quiet machine); the ten slowest files`,
  async run({ flags }) {
    // `--suite-files <filter>`: only the files vitest's filter selects (a quick check of this entry).
    const filters = flags['suite-files'] ? [flags['suite-files']] : [];
    const out = await mkdtemp(join(tmpdir(), 'partner-sim-suite-time-'));
    try {
      const json = join(out, 'vitest.json');
      // The host's pace around the run: the same code's figure moves with it (hostPace.ts).
      const paceBefore = await hostPace();
      // What `npm test` does first on a fresh clone (pretest): the build of a stale dist/.
      const b0 = performance.now();
      const built = await new Promise<number>((resolve, reject) => {
        const child = spawn(process.execPath, [fromRoot('server', 'dev', 'buildIfStale.mjs'), '--force'], {
          cwd: fromRoot(),
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        child.once('error', reject);
        child.once('close', (c) => resolve(c ?? 1));
      });
      const buildS = (performance.now() - b0) / 1000;
      const cpu0 = await childCpuSeconds();
      const quiet = quietComputeS();
      const sampler = paceDuring();
      const t0 = performance.now();
      const code = await new Promise<number>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [
            fromRoot('node_modules', 'vitest', 'vitest.mjs'),
            'run',
            '--reporter=dot',
            '--reporter=json',
            `--outputFile.json=${json}`,
            ...filters,
          ],
          { cwd: fromRoot(), stdio: ['ignore', 'ignore', 'inherit'] },
        );
        child.once('error', reject);
        child.once('close', (c) => resolve(c ?? 1));
      });
      const wallS = (performance.now() - t0) / 1000;
      const during = sampler.stop();
      const cpu1 = await childCpuSeconds();
      const paceAfter = await hostPace();
      const report = JSON.parse(await readFile(json, 'utf8')) as JsonReport;
      const files = report.testResults
        .map((r) => ({ file: relative(fromRoot(), r.name), s: (r.endTime - r.startTime) / 1000 }))
        .sort((a, b) => b.s - a.s);
      const cpu =
        cpu0 !== undefined && cpu1 !== undefined ? `, CPU ${fmt(cpu1 - cpu0)} s (all processes)` : '';
      // `--write-durations`: keep the slow files' times for the sequencer (testing/longestFirst.ts).
      if (flags['write-durations'] && filters.length === 0) {
        const slow = files
          .filter((f) => f.s >= 2)
          .map((f): [string, number] => [f.file, Math.round(f.s * 10) / 10]);
        await writeFile(DURATIONS_FILE, `${JSON.stringify(Object.fromEntries(slow), null, 2)}\n`);
      }
      const lines = [
        `${report.numTotalTests} tests in ${files.length} files, ${report.numFailedTests} failed (exit ${code})`,
        `wall time ${fmt(wallS)} s${cpu}; with the build a fresh clone's npm test makes first (${fmt(buildS)} s, exit ${built}): ${fmt(wallS + buildS)} s (target <= ${TARGET_S} s)`,
        `host pace (a fixed workload) before the run: ${paceLine(paceBefore)}; after it: ${paceLine(paceAfter)}`,
        `host pace during the run: ${duringLine(quiet, during)}`,
        'slowest files (their own wall time; files run in parallel):',
        ...files.slice(0, 10).map((f) => `  ${fmt(f.s).padStart(6)} s  ${f.file}`),
      ];
      return { lines, ok: code === 0 && built === 0 && wallS + buildS <= TARGET_S };
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  },
};
