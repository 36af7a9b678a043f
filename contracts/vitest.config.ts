import { defineConfig } from 'vitest/config';

/** Compiled: dist/contracts (an installed package, the image), or the tests' build of the sources. */
const compiled = import.meta.url.endsWith('.js');

// The contract suite's vitest config: `partner-sim contract` hands vitest this object (run.ts);
// the repository's `npm test` runs the scenario sources in its one project (../vitest.config.ts,
// which takes the tags from here). It is compiled with the scenarios
// (dist/contracts), so an installed package runs the compiled `.test.js` files next to it and a
// checkout runs the `.test.ts` sources; the root is this file's folder either way.
export default defineConfig({
  test: {
    name: 'contracts',
    include: ['*.test.{ts,js}'],
    testTimeout: 60_000,
    // One file at a time against a url or live target (a live rate limit is per process).
    fileParallelism: false,
    // The scenario files run one after another in one module context: the simulator, the
    // client and the compiled response validators are loaded once, not once per file (a run
    // took 17.5 s of CPU isolated, 11 s not; issue 33). Each file still arranges its own target.
    isolate: false,
    // Compiled, the scenarios are plain JavaScript that Node imports itself: no vite transform
    // or module runner, and no loader hooks (the suite mocks nothing). A run took ~15% less
    // CPU (issue 33). Then a worker thread, not a second process, runs them: another ~6% (a
    // median 2.67 -> 2.52 s of CPU per run, measured alternately). The sources (run with this
    // config by hand) need the runner for types and keep vitest's pool.
    ...(compiled
      ? { pool: 'threads' as const, experimental: { viteModuleRunner: false, nodeLoader: false } }
      : {}),
    // Scenario tags (lib/suite.ts); `partner-sim contract --live` filters on them.
    tags: [
      { name: 'live-safe', description: 'safe against the live service' },
      { name: 'mutates', description: 'changes real state; live only with CONTRACT_ALLOW_MUTATIONS=1' },
      { name: 'arranged', description: 'needs the simulator control API' },
    ],
  },
});
