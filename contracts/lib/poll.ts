import { sleep } from './rateLimit.js';

export interface PollOptions {
  /** First delay ceiling, ms. */
  baseMs: number;
  /** Largest delay ceiling, ms. */
  capMs: number;
  /** Give up after this long, ms (the hard deadline counts waits, not only requests). */
  deadlineMs: number;
  /** How to wait; the sim target advances its clock instead of sleeping. */
  wait?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  /** Shown in the timeout message. */
  what?: string;
}

export class PollTimeout extends Error {}

/**
 * Poll `fetch` until `done(value)`, waiting between attempts with exponential backoff and
 * full jitter (delay = random() * min(cap, base * 2^attempt)), never past the hard deadline.
 * Elapsed time is the sum of the waits plus real time spent, so a target whose `wait` is
 * virtual (the simulator's clock) still ends.
 */
export async function pollUntil<T>(
  fetch: () => Promise<T>,
  done: (value: T) => boolean,
  opts: PollOptions,
): Promise<{ value: T; attempts: number; waitedMs: number }> {
  const wait = opts.wait ?? sleep;
  const random = opts.random ?? Math.random;
  const now = opts.now ?? Date.now;
  const start = now();
  let waited = 0;
  for (let attempt = 0; ; attempt++) {
    const value = await fetch();
    if (done(value)) return { value, attempts: attempt + 1, waitedMs: waited };
    const elapsed = Math.max(now() - start, waited);
    const left = opts.deadlineMs - elapsed;
    if (left <= 0)
      throw new PollTimeout(
        `${opts.what ?? 'poll'}: not done after ${attempt + 1} attempts in ${Math.round(elapsed)} ms ` +
          `(deadline ${opts.deadlineMs} ms); last value: ${JSON.stringify(value).slice(0, 300)}`,
      );
    const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** attempt);
    const delay = Math.min(left, Math.max(1, Math.floor(random() * ceiling)));
    await wait(delay);
    waited += delay;
  }
}
