import type { ClockOf } from '../core/clock.js';

/** One documented limit: at most `limit` requests per `windowMs` per client id. */
export interface Limit {
  /** Requests of the same group share a window (e.g. submitting and polling transcriptions). */
  group: string;
  limit: number;
  windowMs: number;
}

/**
 * The live service's documented limits, as sliding windows over the injected clock: a test
 * moves the clock with the control API instead of waiting a minute. Only requests let through
 * are counted, so a client that backs off as told gets in again. Windows are kept per client
 * id, then per group, so a per-app reset drops one entry. In memory: a restart forgets the
 * windows, as a real gateway's would.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Map<string, number[]>>();

  constructor(
    /** Windows run on the clock of the app a client id belongs to. */
    private readonly clockOf: ClockOf,
  ) {}

  /** Count a request of `clientId` against `limit`: 0 when allowed, else the seconds to wait (at least 1). */
  take(clientId: string, { group, limit, windowMs }: Limit): number {
    const now = this.clockOf(clientId).now();
    let groups = this.windows.get(clientId);
    if (!groups) {
      groups = new Map();
      this.windows.set(clientId, groups);
    }
    // At most `limit` stamps are kept, so this filter costs the same however busy the client.
    const recent = (groups.get(group) ?? []).filter((t) => t > now - windowMs);
    groups.set(group, recent);
    if (recent.length >= limit) {
      const wait = Math.ceil((recent[0]! + windowMs - now) / 1000);
      return Math.min(Math.max(wait, 1), Math.ceil(windowMs / 1000));
    }
    recent.push(now);
    return 0;
  }

  resetAll(): void {
    this.windows.clear();
  }

  resetApp(clientId: string): void {
    this.windows.delete(clientId);
  }
}
