import type { HandshakeOutcome } from './link.js';
import type { Waits } from './timing.js';
import type { EventName, EventPayloads, Platform } from './types.js';

/**
 * How a handshake outcome looks through the bridge on each platform (device-sdk-notes, "The
 * lock, and what it looks like"). The radio's answer is the same; what the app sees is not:
 * - success, both: connectState 1 (radio link), penState, then bind {status: 0};
 * - a refused handshake on iOS: connectState 1, then {connected: false, failed: false,
 *   state: 0}, and no bind at all;
 * - any failure on Android: nothing until the SDK's handshake timeout, then connectFail
 *   {reason} (Capacitor Android's diagnostic event) and connectState {failed: true, state: 2};
 * - a radio failure on iOS (stale radio id, device gone): connectState {failed, state 2}
 *   after the same timeout.
 */

export type Emit = <K extends EventName>(name: K, payload: EventPayloads[K]) => void;

/** Reasons that never reach the handshake: the radio link itself did not come up. */
const RADIO_FAILURES = new Set(['TIME_OUT', 'BLE_CONNECT_FAILED']);

/**
 * connectFail `code` values. The SDK has numeric codes for its enum; their values are not
 * published, so these are our own (a documented choice), stable per reason.
 */
const FAIL_CODES: Record<string, number> = {
  HANDSHAKE_FAIL: 1,
  SN_NOT_MATCH: 2,
  TOKEN_NOT_MARCH: 3,
  TIME_OUT: 4,
  BLE_CONNECT_FAILED: 5,
  RECORDING_NOW: 6,
  USER_REFUSE: 7,
  UUID_IS_EMPTY: 13,
};

export const PROTOCOL_PEN_STATE = { state: 1, privacy: 0, keyState: 0, uDisk: 0 } as const;

export interface ShowContext {
  platform: Platform;
  waits: Waits;
  emit: Emit;
  /** The radio id as the bridge shows it (Android's `mac`). */
  uuid: string;
  /** false once a newer connect, a disconnect or a reset has superseded this one. */
  current: () => boolean;
  /** Radio link up (state 1) or down: what isConnected answers. */
  setLink: (up: boolean) => void;
}

const state = (connected: boolean, failed: boolean, s: number) => ({ connected, failed, state: s });

/** Plays the outcome as events; resolves true when the device ends up connected and bound. */
export async function showHandshake(outcome: HandshakeOutcome, ctx: ShowContext): Promise<boolean> {
  const { waits, emit, platform } = ctx;
  const radioFailure = !outcome.ok && RADIO_FAILURES.has(outcome.reason);
  if (outcome.ok || (platform === 'ios' && !radioFailure)) {
    await waits.wait('radioLink');
    if (!ctx.current()) return false;
    if (platform === 'android') emit('btStatus', { mac: ctx.uuid, status: 'CONNECTED' });
    ctx.setLink(true);
    emit('connectState', state(true, false, 1));
  }
  if (outcome.ok) {
    await waits.wait('handshake');
    if (!ctx.current()) return false;
    emit('penState', { ...PROTOCOL_PEN_STATE });
    emit('bind', { sn: outcome.sn, status: 0, protVersion: outcome.protVersion });
    return true;
  }
  if (platform === 'ios' && !radioFailure) {
    await waits.wait('iosRefusalDrop');
    if (!ctx.current()) return false;
    ctx.setLink(false);
    emit('connectState', state(false, false, 0));
    return false;
  }
  await waits.wait('androidHandshakeTimeout');
  if (!ctx.current()) return false;
  ctx.setLink(false);
  if (platform === 'android') {
    emit('connectFail', {
      mac: ctx.uuid,
      reason: outcome.reason,
      code: FAIL_CODES[outcome.reason] ?? 0,
      message: outcome.message ?? null,
    });
  }
  emit('connectState', state(false, true, 2));
  return false;
}
