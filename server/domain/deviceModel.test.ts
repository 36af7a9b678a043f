import { describe, expect, it } from 'vitest';
import type { SimError } from '../core/errors.js';
import {
  BIND_HISTORY_MAX,
  bindingOf,
  bound,
  checkType,
  isBindOf,
  signedDevice,
  typeOfSerial,
  unbound,
} from './deviceModel.js';

// The registry's rules without HTTP: is_bind derivation and the bind/unbind transitions.

const a = { sub: 'client_user_a', client_id: 'app-1' };
const b = { sub: 'client_user_b', client_id: 'app-2' };

describe('device model', () => {
  it('derives the type from the prefix and refuses a contradicting type with a 422 at the given loc', () => {
    expect([typeOfSerial('8810B3'), typeOfSerial('8820B3'), typeOfSerial('8800B3')]).toEqual([
      'notepro',
      'notepins',
      undefined,
    ]);
    expect(checkType('8820B3', undefined, ['body', 'type'])).toBe('notepins');
    const e = (() => {
      try {
        checkType('8820B3', 'notepro', ['query', 'type']);
      } catch (err) {
        return err as SimError;
      }
    })();
    expect([e?.status, e?.issues?.[0]?.loc]).toEqual([422, ['query', 'type']]);
  });

  it('goes null → true → false, appends one event per bind, and reports the history newest first', () => {
    const signed = signedDevice('8810B3', 'notepro');
    expect(isBindOf(signed)).toBeNull();
    expect(unbound(signed, a)).toBe(signed);
    const once = bound(signed, a);
    const twice = bound(once, a);
    expect(bindingOf(twice)).toEqual({ is_bind: true, bind_history: ['client_user_a', 'client_user_a'] });
    expect(() => bound(twice, b)).toThrow(expect.objectContaining({ status: 403, code: 'DEVICE_BOUND' }));
    expect(() => unbound(twice, b)).toThrow(expect.objectContaining({ status: 403, code: 'DEVICE_BOUND' }));
    const released = unbound(twice, a);
    expect(bindingOf(released)).toEqual({ is_bind: false, bind_history: ['client_user_a', 'client_user_a'] });
    expect(bindingOf(bound(released, b)).bind_history).toEqual([
      'client_user_b',
      'client_user_a',
      'client_user_a',
    ]);
    expect(twice.bind_events).toHaveLength(2); // records are values: nothing was mutated
  });

  it(`keeps the ${BIND_HISTORY_MAX} newest bind events and drops the oldest`, () => {
    expect(BIND_HISTORY_MAX).toBeGreaterThanOrEqual(1000);
    let rec = signedDevice('8810B3', 'notepro');
    const total = BIND_HISTORY_MAX + 25;
    for (let i = 0; i < total; i++) {
      const user = { sub: `client_user_${i}`, client_id: 'app-1' };
      rec = unbound(bound(rec, user), user); // a new account each time: unbind between
    }
    const { bind_history } = bindingOf(rec);
    expect(bind_history).toHaveLength(BIND_HISTORY_MAX);
    expect(bind_history[0]).toBe(`client_user_${total - 1}`);
    expect(bind_history.at(-1)).toBe(`client_user_${total - BIND_HISTORY_MAX}`);
  });
});
