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
    /** Real time as this clock reads it (tests tick it by hand). */
    readonly realNow: () => number = Date.now,
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

  /** Never past year 9999: a clock set near the end keeps running into it, and stops there. */
  now(): number {
    return Math.min(this.frozenAt ?? this.realNow() + this.offset, MAX_SIM_MS);
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

  /** Exactly this state, as stored (another instance moved the shared clock). */
  restore(offsetMs: number, frozenAtMs: number | undefined, shiftMs: number): void {
    this.offset = offsetMs;
    this.frozenAt = frozenAtMs;
    this.shift = shiftMs;
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

/** Simulated time stays within years 1970-9999: every instant there has an ISO form. */
export const MIN_SIM_MS = 0;
export const MAX_SIM_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export const isSimInstant = (ms: unknown): ms is number =>
  typeof ms === 'number' && Number.isFinite(ms) && ms >= MIN_SIM_MS && ms <= MAX_SIM_MS;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * Milliseconds of an RFC 3339 date-time that names a real instant, else undefined. Stricter
 * than `Date.parse`, which turns 2030-02-30 into 2 March, and than the `date-time` format,
 * which lets 23:59:60 through (JavaScript time has no leap seconds).
 */
export function parseInstant(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(2000, mo, 0)).getUTCDate() - (mo === 2 && !isLeap(y) ? 1 : 0);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || s > 59) return undefined;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  const ms = Date.parse(text.toUpperCase().replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : undefined;
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
