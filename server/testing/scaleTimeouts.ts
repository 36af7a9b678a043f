import { vi } from 'vitest';
import { QUIET_TEST_TIMEOUT_MS, scaledBudget } from './scaledBudget.js';

// vitest's setupFiles entry, run before each test file (vitest resets the config after it):
// the default test and hook timeouts and expect.poll's default 1 s wait are budgets for a quiet host,
// stretched by this worker's measured slowdown, as a test's own budgets are (scaledBudget.ts).
// A test or hook that states its own timeout keeps it; where that is a budget, it scales it.
vi.setConfig({
  testTimeout: scaledBudget(QUIET_TEST_TIMEOUT_MS),
  hookTimeout: scaledBudget(10_000), // vitest's default
  expect: { poll: { timeout: scaledBudget(1000) } },
});
