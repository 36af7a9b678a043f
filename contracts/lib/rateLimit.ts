import { retryAfterMs, sleep } from '../../server/client/retry.js';

export { sleep };

/**
 * Client-side rate limit for the live target: requests are spaced at least 1/rate seconds
 * apart, and a `Retry-After` from the service pushes the next request back. Serial use only
 * (the contract project runs files one after another), so no queue is needed.
 */
export class RateLimiter {
  private next = 0;
  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
    private readonly wait: (ms: number) => Promise<void> = sleep,
  ) {}

  async take(): Promise<void> {
    const t = this.now();
    if (this.next > t) await this.wait(this.next - t);
    this.next = Math.max(t, this.next) + 1000 / this.perSecond;
  }

  /** The service said `Retry-After: seconds` (or an HTTP date): hold every request until then. */
  backOff(retryAfter: string | undefined, fallbackMs = 1000, capMs = 60_000): number {
    const ms = retryAfterMs(retryAfter, this.now()) ?? fallbackMs;
    const wait = Math.min(ms, capMs);
    this.next = Math.max(this.next, this.now() + wait);
    return wait;
  }
}
