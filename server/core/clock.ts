/**
 * The one clock of a simulator instance. Everything time-dependent (token expiry, presigned
 * URL expiry, transcription progress) reads `now()`, so a test can jump time with the control
 * API instead of sleeping. The clock runs with real time plus an offset; only the offset is
 * state, which is why it can be persisted and survives restarts.
 */
export interface Clock {
  /** Milliseconds since the epoch, as the simulator sees it. */
  now(): number;
}

export class SimClock implements Clock {
  private offset: number;
  /** When frozen, the instant the clock shows until it is moved or thawed. */
  private frozenAt: number | undefined;
  /**
   * The sum of every explicit move (advance, set) since the last reset. Per-app clocks frozen
   * at an instant follow it, so moving the instance clock moves every app, frozen or not.
   */
  private shift: number;

  constructor(
    offsetMs = 0,
    private readonly realNow: () => number = Date.now,
    frozenAtMs?: number,
    shiftMs = 0,
  ) {
    this.offset = offsetMs;
    this.frozenAt = frozenAtMs;
    this.shift = shiftMs;
  }

  /** Explicit moves so far (see `shift`). */
  get shiftMs(): number {
    return this.shift;
  }

  now(): number {
    return this.frozenAt ?? this.realNow() + this.offset;
  }

  /** Simulated minus real time. */
  get offsetMs(): number {
    return this.frozenAt === undefined ? this.offset : this.frozenAt - this.realNow();
  }

  /** The frozen instant, or undefined while the clock runs with real time. */
  get frozenAtMs(): number | undefined {
    return this.frozenAt;
  }

  advance(ms: number): void {
    this.shift += ms;
    if (this.frozenAt === undefined) this.offset += ms;
    else this.frozenAt += ms;
  }

  /** Jump to an absolute instant; unless frozen, real time keeps flowing from there. */
  set(epochMs: number): void {
    this.shift += epochMs - this.now();
    if (this.frozenAt === undefined) this.offset = epochMs - this.realNow();
    else this.frozenAt = epochMs;
  }

  /**
   * Stop the clock where it is (only explicit moves change it then), or let it run again with
   * real time from the instant it shows. A frozen clock makes timing tests exact.
   */
  freeze(on: boolean): void {
    if (on && this.frozenAt === undefined) this.frozenAt = this.now();
    if (!on && this.frozenAt !== undefined) {
      this.offset = this.frozenAt - this.realNow();
      this.frozenAt = undefined;
    }
  }

  /** Back to real time plus `ms`, running. */
  setOffset(ms: number): void {
    this.frozenAt = undefined;
    this.offset = ms;
    this.shift = 0;
  }
}

/** A clock that only moves when told to: handy for pure unit tests. */
export class ManualClock implements Clock {
  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/**
 * The clock a rule follows for the app a request belongs to (server/domain/clocks.ts keeps one
 * per app); `undefined` is the instance clock.
 */
export type ClockOf = (clientId: string | undefined) => Clock;

/** Every app on the same clock: for unit tests of one domain module. */
export const oneClock =
  (clock: Clock): ClockOf =>
  () =>
    clock;

export const toIso = (ms: number): string => new Date(ms).toISOString();
export const epochSeconds = (ms: number): number => Math.floor(ms / 1000);
