import { anchorsBenchmark } from './anchors.js';
import { deepBodiesBenchmark } from './deepBodies.js';
import { faultMatchingBenchmark } from './faultMatching.js';
import { globalFaultsBenchmark } from './globalFaults.js';
import { httpsOverheadBenchmark } from './httpsOverhead.js';
import { installSizeBenchmark } from './installSize.js';
import { type Benchmark, fmt } from './lib.js';
import { manyInstancesBenchmark } from './manyInstances.js';
import { pgStoreBenchmark } from './pgStore.js';
import { givenPgUrl, markStartedUnderPostgres, rerunUnderPostgres, skipOnlyPg } from './postgres.js';
import { recordMemoryBenchmark } from './recordMemory.js';
import { recordRedactionBenchmark } from './recordRedaction.js';
import { requestLogLineBenchmark } from './requestLogLine.js';
import { requestOverheadBenchmark } from './requestOverhead.js';
import { startupBenchmark } from './startup.js';
import { startupStoredBenchmark } from './startupStored.js';
import { storeWritesBenchmark } from './storeWrites.js';
import { suiteTimeBenchmark } from './suiteTime.js';
import { uploadMemoryBenchmark } from './uploadMemory.js';
import { webhookLoadBenchmark } from './webhookLoad.js';
import { writeSoakBenchmark } from './writeSoak.js';

/**
 * `npm run bench [-- --quick] [-- --only name] [-- --key value]`: every benchmark measures the
 * simulator and a baseline in the same run and prints the ratio; exit 1 when a target is missed.
 * Add a benchmark by exporting a `Benchmark` and listing it here.
 */
export const benchmarks: Benchmark[] = [
  startupBenchmark,
  startupStoredBenchmark,
  requestOverheadBenchmark,
  requestLogLineBenchmark,
  deepBodiesBenchmark,
  httpsOverheadBenchmark,
  storeWritesBenchmark,
  uploadMemoryBenchmark,
  recordMemoryBenchmark,
  recordRedactionBenchmark,
  faultMatchingBenchmark,
  globalFaultsBenchmark,
  pgStoreBenchmark,
  manyInstancesBenchmark,
  webhookLoadBenchmark,
  writeSoakBenchmark,
  installSizeBenchmark,
  suiteTimeBenchmark,
];

const HELP = `Usage: npm run bench -- [--quick] [--anchors] [--only <name substring>] [--<flag> <value> ...]

Runs the benchmarks (the build output in dist/; npm run bench builds first):
${benchmarks.map((b) => `  ${b.name.padEnd(32)} ${b.target}`).join('\n')}

  --anchors   also run "${anchorsBenchmark.name}": ${anchorsBenchmark.target}
              (installs Prism and WireMock from npm into a temporary folder; not part of CI)
  --quick     smaller workloads
  --only X    run the benchmarks whose name contains X
  --pg URL    the PostgreSQL server to measure on (a database per measurement is created and
              dropped); default PARTNER_SIM_TEST_PG, else a throw-away cluster (.ci/with-postgres)
  --write-durations
              with the test suite's entry: keep its slow files' times in
              server/testing/fileDurations.json (the test sequencer runs them first)
  --help      this text
Other --key value pairs are passed to the benchmarks (e.g. --size-mib 64 for the upload).
`;

async function main(argv: string[]): Promise<number> {
  markStartedUnderPostgres();
  const flags: Record<string, string> = {};
  let quick = false;
  let anchors = false;
  let only: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') {
      process.stdout.write(HELP);
      return 0;
    }
    if (a === '--quick') quick = true;
    else if (a === '--anchors') anchors = true;
    else if (a === '--only') only = argv[++i];
    else if (a === '--write-durations') flags['write-durations'] = '1';
    else if (a.startsWith('--') && argv[i + 1] !== undefined) flags[a.slice(2)] = argv[++i]!;
    else {
      process.stderr.write(`bench: unexpected argument ${a}\n\n${HELP}`);
      return 2;
    }
  }
  const all = anchors ? [...benchmarks, anchorsBenchmark] : benchmarks;
  const chosen = all.filter((b) => !only || b.name.includes(only));
  if (chosen.length === 0) {
    process.stderr.write(`bench: no benchmark matches ${only}\n`);
    return 2;
  }
  if (chosen.some((b) => b.needsPg) && !givenPgUrl(flags)) {
    const under = await rerunUnderPostgres(argv);
    if ('code' in under) return under.code;
    Object.assign(flags, skipOnlyPg(under.skip));
  }
  let failed = 0;
  for (const b of chosen) {
    const t0 = performance.now();
    process.stdout.write(`\n== ${b.name} (target: ${b.target})\n`);
    const r = await b.run({ quick, flags });
    for (const line of r.lines) process.stdout.write(`  ${line}\n`);
    process.stdout.write(`  => ${r.ok ? 'OK' : 'MISSED'} (${fmt((performance.now() - t0) / 1000)} s)\n`);
    if (!r.ok) failed++;
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`bench: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
