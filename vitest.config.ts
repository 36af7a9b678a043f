import { defineConfig } from 'vitest/config';

// Three projects so CI can run them separately: unit tests beside the code, the black-box
// contract suite, and the partner-flow tests that play the partner app.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['server/**/*.test.ts', 'bench/**/*.test.ts'], testTimeout: 20_000 } },
      {
        test: {
          name: 'contracts',
          include: ['contracts/**/*.test.ts'],
          testTimeout: 60_000,
          fileParallelism: false,
          // Scenario tags (contracts/lib/suite.ts); `partner-sim contract --live` filters on them.
          tags: [
            { name: 'live-safe', description: 'safe against the live service' },
            { name: 'mutates', description: 'changes real state; live only with CONTRACT_ALLOW_MUTATIONS=1' },
            { name: 'arranged', description: 'needs the simulator control API' },
          ],
        },
      },
      { test: { name: 'sdk', include: ['sdk-tests/**/*.test.ts'], testTimeout: 60_000 } },
    ],
  },
});
