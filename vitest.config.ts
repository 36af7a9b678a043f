import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import LongestFirst from './server/testing/longestFirst.js';

// Three projects so CI can run them separately: unit tests beside the code, the black-box
// contract suite, and the partner-flow tests that play the partner app.
export default defineConfig({
  test: {
    // Starts a throw-away PostgreSQL where Debian's binaries are, and names what must skip.
    globalSetup: ['./server/testing/globalSetup.ts'],
    // Pool settings, chosen by measurement (issue 33; docs/development.md "How npm test runs").
    // vitest's default on 2 cores is ONE worker (cores - 1), while most files wait on sockets,
    // child processes and timers: two overlap those waits. Three measured faster in plain runs
    // (151-157 s against 162-172 s) but started the heaviest files together (the crash test,
    // three instances on PostgreSQL, eight parallel contract runs): the crash test then took
    // 52 s of its 55 s budget in one run. Two keep every test far inside its timeout.
    maxWorkers: 2,
    // Longest files first, from vitest's cache or a measured run's times (a fresh clone has no cache).
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['server/**/*.test.ts', 'bench/**/*.test.ts'],
          testTimeout: 20_000,
          // One module context per worker, not per file: each file imported the app (express,
          // the spec, the validators) again, 286 s of "import" in a 1,719 s run. Files stop
          // what they start and restore what they replace (global dispatcher, fake timers).
          isolate: false,
        },
      },
      // Its own file: `partner-sim contract` runs the same config from the installed package.
      './contracts/vitest.config.ts',
      {
        // `partner-sim` is the package entry's source, so partner-style tests need no build;
        // `plaud-sdk` is the React Native double, aliased as a partner's vitest config does.
        resolve: {
          alias: {
            'partner-sim': fileURLToPath(new URL('./server/index.ts', import.meta.url)),
            'plaud-sdk': fileURLToPath(new URL('./server/doubles/reactNative.ts', import.meta.url)),
          },
        },
        // Not isolated either, as the unit project (each file imported the simulator again).
        test: { name: 'sdk', include: ['sdk-tests/**/*.test.ts'], testTimeout: 60_000, isolate: false },
      },
    ],
  },
});
