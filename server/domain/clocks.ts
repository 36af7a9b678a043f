import { type Clock, type SimClock, toIso } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import type { components } from '../spec/admin-types.js';
import type { Collection, Store } from '../store/store.js';
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
  private readonly apps: Collection<AppClockRecord>;
  private readonly views = new Map<string, Clock>();

  constructor(
    readonly instanceClock: SimClock,
    private readonly instance: Instance,
    store: Store,
  ) {
    this.apps = store.collection<AppClockRecord>('clocks');
  }

  /** The clock of one app (the instance clock when the request belongs to no app). */
  of(clientId: string | undefined): Clock {
    if (clientId === undefined) return this.instanceClock;
    let view = this.views.get(clientId);
    if (!view) {
      // A view reads the record on every call: moving an app's clock needs no cache eviction.
      view = { now: () => this.nowOf(clientId) };
      this.views.set(clientId, view);
    }
    return view;
  }

  state(clientId?: string): ClockState {
    const now = this.of(clientId).now();
    const offset = clientId === undefined ? this.instanceClock.offsetMs : now - Date.now();
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
    const clock = this.instanceClock;
    const target = targetOf(change, clock.now());
    if ('advance_ms' in change) clock.advance(change.advance_ms);
    else if (target !== undefined) clock.set(target);
    if (change.freeze !== undefined) clock.freeze(change.freeze);
    await this.instance.update({
      clockOffsetMs: clock.offsetMs,
      clockFrozenAt: clock.frozenAtMs ?? null,
      clockShiftMs: clock.shiftMs,
    });
  }

  private async changeApp(clientId: string, change: ClockChange): Promise<void> {
    const base = this.instanceClock;
    let rec = this.apps.get(clientId) ?? {
      client_id: clientId,
      offset_ms: 0,
      frozen_at: null,
      shift_at_freeze: 0,
    };
    const target = targetOf(change, this.nowOf(clientId));
    if (target !== undefined) {
      rec =
        rec.frozen_at === null
          ? { ...rec, offset_ms: target - base.now() }
          : { ...rec, frozen_at: target, shift_at_freeze: base.shiftMs };
    }
    if (change.freeze === true && rec.frozen_at === null) {
      rec = { ...rec, frozen_at: base.now() + rec.offset_ms, shift_at_freeze: base.shiftMs };
    } else if (change.freeze === false && rec.frozen_at !== null) {
      rec = { ...rec, offset_ms: appNow(rec, base) - base.now(), frozen_at: null };
    }
    await this.apps.put(clientId, rec);
  }

  private nowOf(clientId: string): number {
    const rec = this.apps.get(clientId);
    return rec ? appNow(rec, this.instanceClock) : this.instanceClock.now();
  }

  private isFrozen(clientId: string | undefined): boolean {
    if (clientId === undefined) return this.instanceClock.frozenAtMs !== undefined;
    const rec = this.apps.get(clientId);
    return rec ? rec.frozen_at !== null : this.instanceClock.frozenAtMs !== undefined;
  }

  /** Back to real time: every app clock dropped, the instance clock running at offset 0. */
  async resetAll(): Promise<void> {
    this.views.clear();
    await this.apps.deleteWhere(() => true);
    this.instanceClock.setOffset(0);
    await this.instance.update({ clockOffsetMs: 0, clockFrozenAt: null, clockShiftMs: 0 });
  }

  async resetApp(clientId: string): Promise<void> {
    this.views.delete(clientId);
    await this.apps.delete(clientId);
  }
}

function appNow(rec: AppClockRecord, base: SimClock): number {
  return rec.frozen_at === null
    ? base.now() + rec.offset_ms
    : rec.frozen_at + (base.shiftMs - rec.shift_at_freeze);
}

/** Where a change puts the clock (undefined: it only freezes or thaws); refused outside 1970–9999. */
function targetOf(change: ClockChange, now: number): number | undefined {
  let target: number | undefined;
  let field: string | undefined;
  if ('advance_ms' in change) [target, field] = [now + change.advance_ms, 'advance_ms'];
  if ('now' in change) [target, field] = [Date.parse(change.now), 'now'];
  if (target === undefined || field === undefined) return undefined;
  if (!(target >= 0 && target <= MAX_INSTANT)) {
    throw SimError.invalidField(
      ['body', field],
      'would put simulated time outside the years 1970 to 9999',
      'value_error',
      field === 'now' ? (change as { now: string }).now : (change as { advance_ms: number }).advance_ms,
    );
  }
  return target;
}

/** 9999-12-31T23:59:59.999Z */
const MAX_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
