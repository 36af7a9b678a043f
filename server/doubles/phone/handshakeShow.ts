import type { Wait } from './timing.js';
import type { EventName, EventPayloads, Platform } from './types.js';

/**
 * A handshake the SDK cannot even start (the key pair never arrived: Android's JP-default
 * base URL with a US token), shown as each platform shows a refused handshake — the same
 * shapes the device protocol uses for a lock (device-sdk-notes, "The lock, and what it
 * looks like"): iOS connectState 1 then 0 and no bind; Android, after the handshake
 * timeout, connectFail {reason} and connectState {failed: true, state: 2}.
 */

export type Emit = <K extends EventName>(name: K, payload: EventPayloads[K]) => void;

export interface LocalRefusal {
  platform: Platform;
  wait: Wait;
  emit: Emit;
  /** The radio id as the bridge shows it (Android's `mac`). */
  uuid: string;
  reason: 'HANDSHAKE_FAIL';
  message: string;
  /** false once a newer connect or a disconnect superseded this one. */
  current: () => boolean;
}

export async function showLocalRefusal(r: LocalRefusal): Promise<void> {
  if (r.platform === 'ios') {
    await r.wait('radioLink');
    if (!r.current()) return;
    r.emit('connectState', { connected: true, failed: false, state: 1 });
    await r.wait('iosRefusalDrop');
    if (r.current()) r.emit('connectState', { connected: false, failed: false, state: 0 });
    return;
  }
  await r.wait('androidHandshakeTimeout');
  if (!r.current()) return;
  r.emit('connectFail', { mac: r.uuid, reason: r.reason, message: r.message });
  r.emit('connectState', { connected: false, failed: true, state: 2 });
}

/**
 * A device the bridge remembers from an earlier scan but the radio cannot reach (it left
 * range, or advertises under a new id): the plugins never clear their scan maps, so the call
 * resolves and the SDK reports the failed link after its connect timeout, as the device
 * protocol's `unreachable` row does: connectState {failed: true, state: -1}, on Android with
 * connectFail BLE_CONNECT_FAILED.
 */
export async function showUnreachable(r: Omit<LocalRefusal, 'reason' | 'message'>): Promise<void> {
  await r.wait('bleConnectFail');
  if (!r.current()) return;
  r.emit('connectState', { connected: false, failed: true, state: -1 });
  if (r.platform === 'android') r.emit('connectFail', { mac: r.uuid, reason: 'BLE_CONNECT_FAILED' });
}
