import type { ClockOf } from '../core/clock.js';

/**
 * The live service's documented limit on the partner-token exchange (10 requests per minute
 * per client id), as a sliding window over the injected clock: a test moves the clock with
 * the control API instead of waiting a minute. Only requests let through are counted, so a
 * client that backs off as told gets in again. In memory: a restart forgets the window, as a
 * real gateway's would.
 */
export class RateLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(
    /** Windows run on the clock of the app a key belongs to (the key is its client id). */
    private readonly clockOf: ClockOf,
    readonly limit = 10,
    readonly windowMs = 60_000,
  ) {}

  /** Count a request of `key`: 0 when allowed, else the seconds to wait (at least 1). */
  take(key: string): number {
    const now = this.clockOf(key).now();
    const recent = (this.windows.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (recent.length >= this.limit) {
      this.windows.set(key, recent);
      const wait = Math.ceil((recent[0]! + this.windowMs - now) / 1000);
      return Math.min(Math.max(wait, 1), Math.ceil(this.windowMs / 1000));
    }
    recent.push(now);
    this.windows.set(key, recent);
    return 0;
  }

  resetAll(): void {
    this.windows.clear();
  }

  resetApp(clientId: string): void {
    this.windows.delete(clientId);
  }
}
