import type { Clock } from './clock.js';

/** One kind of stale state: removes at most `budget` items stale at `nowMs`, says how many. */
export interface Sweeper {
  name: string;
  sweep(nowMs: number, budget: number): Promise<number>;
  /** True when the sweep looked at one page of many (store/pagedSweep.ts): go on at once. */
  more?(): boolean;
  /** Called on every tick, not only in full rounds (work due to the second, e.g. webhook retries). */
  everyTick?: boolean;
}

export interface HousekeeperOptions {
  /** Real time between ticks of the running simulator's timer. */
  tickMs: number;
  /** Simulated time between full sweeps (a tick that found more than its budget goes on at once). */
  everySimMs: number;
  /** Items each sweeper may remove per tick, so one tick never holds the event loop long. */
  budget: number;
}

/** The running simulator's defaults; its tick follows `--housekeeping-tick`. */
export const HOUSEKEEPING: HousekeeperOptions = { tickMs: 1000, everySimMs: 60_000, budget: 200 };

/**
 * Housekeeping off the request path: abandoned uploads, expired refresh tokens and the like
 * are removed by a background timer, never inside a client's request (a sweep there once
 * made a presign take 1.28 s). Stale is judged by each sweeper on simulated time (per-app
 * state on its app's clock); rounds come a simulated minute apart on the instance clock, so
 * advancing it makes the next tick sweep, and at least every real minute. The timer is started by the running
 * simulator only (createApp stays free of side effects), is unref'd (it never keeps the
 * process alive) and is stopped on close; tests call `tick()` by hand.
 */
export class Housekeeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private lastFull = Number.NEGATIVE_INFINITY;
  private lastReal = Number.NEGATIVE_INFINITY;
  private behind = false;

  constructor(
    private readonly clock: Clock,
    private readonly sweepers: Sweeper[],
    private readonly opts: HousekeeperOptions = HOUSEKEEPING,
    private readonly onError: (e: unknown, sweeper: string) => void = () => {},
    private readonly realNow: () => number = Date.now,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.tick().catch(() => {});
    }, this.opts.tickMs);
    this.timer.unref();
  }

  /** Stop the timer and wait for a tick in progress (its writes must land before the store closes). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => 0);
  }

  /**
   * One round: when a simulated `everySimMs` passed since the last one (or the last one left
   * work behind, or `force`), each sweeper removes up to `budget` stale items. Overlapping
   * calls share the round in progress. Resolves to how many items were removed.
   */
  tick(force = false): Promise<number> {
    this.running ??= this.round(force).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Only the sweepers that run on every tick. */
  private async everyTick(now: number): Promise<number> {
    let n = 0;
    for (const s of this.sweepers) {
      if (!s.everyTick) continue;
      try {
        n += await s.sweep(now, this.opts.budget);
      } catch (e) {
        this.onError(e, s.name);
      }
    }
    return n;
  }

  private async round(force: boolean): Promise<number> {
    const now = this.clock.now();
    const real = this.realNow();
    // Due when a simulated minute passed on the pacing clock, or a real one: sweepers judge each
    // record on its own app's clock, which may move (or a frozen instance clock may not) alone.
    const due =
      Math.abs(now - this.lastFull) >= this.opts.everySimMs || real - this.lastReal >= this.opts.everySimMs;
    if (!force && !this.behind && !due) return this.everyTick(now);
    this.lastFull = now;
    this.lastReal = real;
    this.behind = false;
    let removed = 0;
    for (const s of this.sweepers) {
      try {
        const n = await s.sweep(now, this.opts.budget);
        if (n >= this.opts.budget || s.more?.()) this.behind = true;
        removed += n;
      } catch (e) {
        this.onError(e, s.name);
      }
    }
    return removed;
  }
}
