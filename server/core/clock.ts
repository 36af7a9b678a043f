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

  constructor(
    offsetMs = 0,
    private readonly realNow: () => number = Date.now,
  ) {
    this.offset = offsetMs;
  }

  now(): number {
    return this.realNow() + this.offset;
  }

  get offsetMs(): number {
    return this.offset;
  }

  advance(ms: number): void {
    this.offset += ms;
  }

  /** Jump to an absolute instant; real time keeps flowing from there. */
  set(epochMs: number): void {
    this.offset = epochMs - this.realNow();
  }

  setOffset(ms: number): void {
    this.offset = ms;
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

export const toIso = (ms: number): string => new Date(ms).toISOString();
export const epochSeconds = (ms: number): number => Math.floor(ms / 1000);
