import { fixedComputation } from './fixedComputation.js';

/**
 * The fixed computation's wall time on this project's 2-core machine with nothing else
 * running (27-33 ms; bench/hostPace.ts times the same code in CPU seconds).
 */
const QUIET_MS = 30;
/** vitest.config.ts's testTimeout, for a quiet host; scaleTimeouts.ts stretches it per worker. */
export const QUIET_TEST_TIMEOUT_MS = 20_000;
/** A host this much slower fails for other reasons; a budget stays a budget. */
const MAX_SLOWDOWN = 8;

let measured: number | undefined;

/**
 * How much slower than a quiet host this worker's host is now: the fixed computation's wall
 * time (the median of five, after two to warm up, ~0.2 s) over QUIET_MS, measured once per
 * worker, never below 1 (a faster host keeps the stated budgets). Wall time, not CPU time:
 * a busy host gives this worker less of a core, which is what stretches a test's durations.
 */
function hostSlowdown(): number {
  if (measured === undefined) {
    fixedComputation();
    fixedComputation();
    const times = Array.from({ length: 5 }, () => {
      const t0 = performance.now();
      fixedComputation();
      return performance.now() - t0;
    }).sort((a, b) => a - b);
    measured = Math.min(MAX_SLOWDOWN, Math.max(1, times[2]! / QUIET_MS));
  }
  return measured;
}

/**
 * A wall-clock budget for work that should take `ms` on a quiet host, stretched by the host's
 * measured slowdown: `npm test` failed three timing tests with the host busy (issue 45).
 * Only for limits that say "not slower than"; a minimum duration (a delay that must hold)
 * stays as stated.
 */
export const scaledBudget = (ms: number): number => Math.round(ms * hostSlowdown());
