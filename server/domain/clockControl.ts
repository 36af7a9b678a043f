import { isSimInstant, parseInstant, type SimClock } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { components } from '../spec/admin-types.js';
import type { Instance } from './instance.js';

export type ClockChange = components['schemas']['ClockChange'];

const outOfRange = (field: string, input: unknown, why: string): SimError =>
  SimError.invalidField(['body', field], why, 'value_error', input);

/**
 * Apply `POST /__admin/clock`: the move is checked before anything changes, so the clock
 * never shows (and the instance record never persists) an instant outside years 1970-9999.
 * Such an instant has no ISO form: once stored it made every later request (and every
 * restart) fail while formatting the time.
 */
export async function changeClock(clock: SimClock, instance: Instance, change: ClockChange): Promise<void> {
  if ('advance_ms' in change) {
    const to = clock.now() + change.advance_ms;
    if (!Number.isSafeInteger(change.advance_ms) || !isSimInstant(to)) {
      throw outOfRange('advance_ms', change.advance_ms, 'the clock would leave years 1970-9999');
    }
    clock.advance(change.advance_ms);
  }
  if ('now' in change) {
    const to = parseInstant(change.now);
    if (to === undefined) throw outOfRange('now', change.now, 'not a real instant (RFC 3339 date-time)');
    if (!isSimInstant(to)) throw outOfRange('now', change.now, 'must be within years 1970-9999');
    clock.set(to);
  }
  if (change.freeze !== undefined) clock.freeze(change.freeze);
  await instance.update({ clockOffsetMs: clock.offsetMs, clockFrozenAt: clock.frozenAtMs ?? null });
}
