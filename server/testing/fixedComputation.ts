/** Kept, so the computation below cannot be optimised away. */
let sink = 0;

/**
 * One small fixed computation (~25 ms on a quiet 2-core host of this project): integer
 * arithmetic, no allocation, so no garbage collection makes it vary (a JSON round trip of
 * objects varied 17-97 ms between samples). The host's pace is how long it takes: in CPU
 * seconds for the suite bench (bench/hostPace.ts), in wall time for test budgets
 * (scaledBudget.ts).
 */
export function fixedComputation(): void {
  let x = sink;
  for (let i = 0; i < 1_000_000; i++) x = (x * 1103515245 + 12345 + i) % 2147483647;
  sink = x;
}
