import {
  type Clock,
  isSimInstant,
  MAX_SIM_MS,
  MIN_SIM_MS,
  parseInstant,
  type SimClock,
  toIso,
} from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import type { components } from '../spec/admin-types.js';
import type { MirroredCollection, Store } from '../store/store.js';
import type { Instance } from './instance.js';

export type ClockState = components['schemas']['ClockState'];
export type ClockChange = components['schemas']['ClockChange'];

/**
 * One app's own time on top of the instance clock: an offset while it runs, or the instant it
 * is frozen at. A frozen app records the instance clock's `shiftMs` when it froze, so explicit
 * moves of the instance clock still move it.
 */
interface AppClockRecord {
  client_id: string;
  offset_ms: number;
  frozen_at: number | null;
  shift_at_freeze: number;
}

/**
 * Time per partner app, so CI jobs sharing one simulator can each move their own clock without
 * expiring another job's tokens and URLs. Every time-dependent rule of a request asks
 * `of(client_id)` for the clock of the app the request belongs to; an app nobody moved reads
 * the instance clock itself. The shared device registry and the control plane stay on the
 * instance clock. Records live in the store (collection `clocks`), one per moved app.
 */
export class Clocks implements Lifecycle {
  /** Mirrored: clocks are read synchronously on every request. */
  private readonly apps: MirroredCollection<AppClockRecord>;

  constructor(
    readonly instanceClock: SimClock,
    private readonly instance: Instance,
    store: Store,
  ) {
    this.apps = store.mirrored<AppClockRecord>('clocks');
  }

  /** The clock of one app (the instance clock when the request belongs to no app). */
  of(clientId: string | undefined): Clock {
    if (clientId === undefined) return this.instanceClock;
    // A view reads the record on every call, so a moved clock needs no cache to evict; and
    // nothing is kept per id, so ids named by unauthenticated requests cost no memory.
    return { now: () => this.nowOf(clientId) };
  }

  state(clientId?: string): ClockState {
    const now = this.of(clientId).now();
    const rec = clientId === undefined ? undefined : this.apps.peek(clientId);
    // A running app's offset is exactly the instance's plus its own; reading real time twice
    // (now − Date.now()) could be a millisecond off.
    const offset =
      rec === undefined
        ? this.instanceClock.offsetMs
        : rec.frozen_at === null
          ? this.instanceClock.offsetMs + rec.offset_ms
          : now - Date.now();
    const base = {
      now: toIso(now),
      offset_ms: Math.round(offset),
      frozen: this.isFrozen(clientId),
    };
    return clientId === undefined ? base : { ...base, client_id: clientId };
  }

  /** POST /__admin/clock: move the instance clock, or only `client_id`'s. */
  async change(change: ClockChange): Promise<ClockState> {
    const clientId = change.client_id;
    if (clientId === undefined) await this.changeInstance(change);
    else await this.changeApp(clientId, change);
    return this.state(clientId);
  }

  private async changeInstance(change: ClockChange): Promise<void> {
    // Computed from the stored clock in one atomic update: two advances on two instances of one
    // shared store both count (a local read-modify-write would lose one).
    await this.instance.moveClock((clock) => {
      const target = targetOf(change, clock.now());
      // Freeze before moving, thaw after: a frozen clock lands exactly on the target, where a
      // running one set first could tick a millisecond before it froze.
      if (change.freeze === true) clock.freeze(true);
      if ('advance_ms' in change) clock.advance(change.advance_ms);
      else if (target !== undefined) clock.set(target);
      if (change.freeze === false) clock.freeze(false);
    }, this.instanceClock.realNow);
    const i = this.instance;
    this.instanceClock.restore(i.clockOffsetMs, i.clockFrozenAt, i.clockShiftMs);
  }

  private async changeApp(clientId: string, change: ClockChange): Promise<void> {
    // update: two advances of one app's clock at once (two instances) both count.
    await this.apps.update(clientId, (current) => ({
      next: moved(current, clientId, change, this.instanceClock),
      result: undefined,
    }));
  }

  private nowOf(clientId: string): number {
    const rec = this.apps.peek(clientId);
    return rec ? appNow(rec, this.instanceClock) : this.instanceClock.now();
  }

  private isFrozen(clientId: string | undefined): boolean {
    if (clientId === undefined) return this.instanceClock.frozenAtMs !== undefined;
    const rec = this.apps.peek(clientId);
    return rec ? rec.frozen_at !== null : this.instanceClock.frozenAtMs !== undefined;
  }

  /** Back to real time: every app clock dropped, the instance clock running at offset 0. */
  async resetAll(): Promise<void> {
    for (const id of [...this.apps.peekAll()].map((r) => r.client_id)) await this.apps.delete(id);
    this.instanceClock.setOffset(0);
    await this.instance.update({ clockOffsetMs: 0, clockFrozenAt: null, clockShiftMs: 0 });
  }

  async resetApp(clientId: string): Promise<void> {
    await this.apps.delete(clientId);
  }
}

/** An app's clock record after `change` (checked first: a bad target throws, nothing changes). */
function moved(
  current: AppClockRecord | undefined,
  clientId: string,
  change: ClockChange,
  base: SimClock,
): AppClockRecord {
  let rec = current ?? { client_id: clientId, offset_ms: 0, frozen_at: null, shift_at_freeze: 0 };
  const target = targetOf(change, appNow(rec, base));
  // As for the instance clock: freeze first, so the frozen instant is exactly the target.
  if (change.freeze === true && rec.frozen_at === null) {
    rec = { ...rec, frozen_at: appNow(rec, base), shift_at_freeze: base.shiftMs };
  }
  if (target !== undefined) {
    // An advance adds exactly its amount; a jump to `now` reads real time once, as SimClock.set.
    const offset = 'advance_ms' in change ? rec.offset_ms + change.advance_ms : target - base.now();
    rec =
      rec.frozen_at === null
        ? { ...rec, offset_ms: offset }
        : { ...rec, frozen_at: target, shift_at_freeze: base.shiftMs };
  }
  if (change.freeze === false && rec.frozen_at !== null) {
    rec = { ...rec, offset_ms: appNow(rec, base) - base.now(), frozen_at: null };
  }
  return rec;
}

/** An app's time, kept within 1970-9999 like the instance clock (a later instance move may push it). */
function appNow(rec: AppClockRecord, base: SimClock): number {
  const t =
    rec.frozen_at === null
      ? base.now() + rec.offset_ms
      : rec.frozen_at + (base.shiftMs - rec.shift_at_freeze);
  return Math.min(Math.max(t, MIN_SIM_MS), MAX_SIM_MS);
}

const outOfRange = (field: string, input: unknown, why: string): SimError =>
  SimError.invalidField(['body', field], why, 'value_error', input);

/**
 * Where a change puts the clock (undefined: it only freezes or thaws), checked before anything
 * changes: an instant outside years 1970-9999 has no ISO form, and once stored it made every
 * later request (and every restart) fail while formatting the time. ajv lets 1e400 and
 * 23:59:60 through, so both are checked here.
 */
function targetOf(change: ClockChange, now: number): number | undefined {
  if ('advance_ms' in change) {
    const to = now + change.advance_ms;
    if (!Number.isSafeInteger(change.advance_ms) || !isSimInstant(to)) {
      throw outOfRange('advance_ms', change.advance_ms, 'the clock would leave years 1970-9999');
    }
    return to;
  }
  if ('now' in change) {
    const to = parseInstant(change.now);
    if (to === undefined) throw outOfRange('now', change.now, 'not a real instant (RFC 3339 date-time)');
    if (!isSimInstant(to)) throw outOfRange('now', change.now, 'must be within years 1970-9999');
    return to;
  }
  return undefined;
}
