import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import contracts from './contracts/vitest.config.js';
import LongestFirst from './server/testing/longestFirst.js';
import { QUIET_TEST_TIMEOUT_MS } from './server/testing/scaledBudget.js';

// One project for the unit tests beside the code, the black-box contract scenarios
// (contracts/) and the partner-flow tests (sdk-tests/): a path filter runs one part
// (`npx vitest run sdk-tests`). Three projects cost a worker start and a transform of the
// simulator's modules each, and vitest reuses a non-isolated worker only for a next file of
// its own project: measured alternately, one project took the run from 150.9 to 139.5 s and
// from 207 to 189 s of CPU (issue 33; docs/development.md "How npm test runs").
export default defineConfig({
  // `partner-sim` is the package entry's source, so partner-style tests need no build;
  // `plaud-sdk` is the React Native double, aliased as a partner's vitest config does.
  resolve: {
    alias: {
      'partner-sim': fileURLToPath(new URL('./server/index.ts', import.meta.url)),
      'plaud-sdk': fileURLToPath(new URL('./server/doubles/reactNative/reactNative.ts', import.meta.url)),
    },
  },
  test: {
    include: ['server/**/*.test.ts', 'bench/**/*.test.ts', 'sdk-tests/**/*.test.ts', 'contracts/*.test.ts'],
    // Test files that tests run in a vitest of their own (server/testing/childGroups.test.ts).
    exclude: [...configDefaults.exclude, 'server/testing/fixtures/**'],
    // Starts a throw-away PostgreSQL where Debian's binaries are, and names what must skip;
    // holds the run's folder of the tests' child process groups and kills what is left in it.
    globalSetup: ['./server/testing/globalSetup.ts'],
    // Stops, at each file's end, the child process groups its tests left (a timed-out test);
    // scales the default timeouts to the host's measured pace.
    setupFiles: ['./server/testing/stopChildGroups.ts', './server/testing/scaleTimeouts.ts'],
    // Pool settings, chosen by measurement (issue 33; docs/development.md "How npm test runs").
    // vitest's default on 2 cores is ONE worker (cores - 1), while most files wait on sockets,
    // child processes and timers: one more worker than cores. On 2 cores, two workers still
    // left them idle ~15% of a run (files waiting together) and three keep them ~97% busy:
    // measured in alternate pairs, 140-152 s against 152-172 s at the same CPU. The heaviest
    // files then start together, so they state budgets that allow for it (the crash test).
    maxWorkers: availableParallelism() + 1,
    // Longest files first, from vitest's cache or a measured run's times (a fresh clone has no cache).
    sequence: { sequencer: LongestFirst },
    // Slower tests (a real transcription, Chromium, the device's timing) say so where they are.
    // Each worker stretches it (and expect.poll's 1 s) by the host's slowdown (scaleTimeouts.ts).
    testTimeout: QUIET_TEST_TIMEOUT_MS,
    // One module context per worker, not per file: each file imported the app (express, the
    // spec, the validators) again, 286 s of "import" in a 1,719 s run. Files stop what they
    // start and restore what they replace (global dispatcher, fake timers, the doubles' settings).
    isolate: false,
    // The contract scenarios' tags (contracts/lib/suite.ts), declared once in their config.
    tags: contracts.test?.tags,
  },
});
