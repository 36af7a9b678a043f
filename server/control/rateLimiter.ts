import type { ClockOf } from '../core/clock.js';
import type { Collection, Store } from '../store/store.js';

/** One documented limit: at most `limit` requests per `windowMs` per client id. */
export interface Limit {
  /** Requests of the same group share a window (e.g. submitting and polling transcriptions). */
  group: string;
  limit: number;
  windowMs: number;
}

/** One client id's window of one group: the times of the requests let through, oldest first. */
interface RateWindow {
  client_id: string;
  stamps: number[];
}

/**
 * The live service's documented limits, as sliding windows over the injected clock: a test
 * moves the clock with the control API instead of waiting a minute. Only requests let through
 * are counted, so a client that backs off as told gets in again. One record per client id and
 * group (collection `rateWindows`), counted with an atomic update, so instances sharing a
 * store share the limit. The embedded store keeps them in memory only: a restart forgets the
 * windows, as a real gateway's would.
 */
export class RateLimiter {
  private readonly windows: Collection<RateWindow>;

  constructor(
    store: Store,
    /** Windows run on the clock of the app a client id belongs to. */
    private readonly clockOf: ClockOf,
  ) {
    this.windows = store.collection<RateWindow>('rateWindows');
  }

  /** Count a request of `clientId` against `limit`: 0 when allowed, else the seconds to wait (at least 1). */
  take(clientId: string, { group, limit, windowMs }: Limit): Promise<number> {
    const now = this.clockOf(clientId).now();
    return this.windows.update(`${clientId}/${group}`, (cur) => {
      // At most `limit` stamps are kept, so this filter costs the same however busy the client.
      const recent = (cur?.stamps ?? []).filter((t) => t > now - windowMs);
      if (recent.length >= limit) {
        const wait = Math.ceil((recent[0]! + windowMs - now) / 1000);
        return {
          next: { client_id: clientId, stamps: recent },
          result: Math.min(Math.max(wait, 1), Math.ceil(windowMs / 1000)),
        };
      }
      return { next: { client_id: clientId, stamps: [...recent, now] }, result: 0 };
    });
  }

  async resetApp(clientId: string): Promise<void> {
    await this.windows.deleteBy('client_id', clientId);
  }
}
