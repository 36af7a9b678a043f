import { CAPACITOR_MESSAGES } from '../capacitor/capacitorShape.js';
import { BridgeError, MESSAGES, radioRefusal } from './errors.js';
import { type Emit, showLocalRefusal, showUnreachable } from './handshakeShow.js';
import { type ConnectRequest, isProtocol, type PhoneClient, ProtocolError } from './phoneClient.js';
import { connectRefused, type RadioContext } from './radioAnswers.js';
import type { Wait } from './timing.js';
import type { Bridge, Platform, ScanDevice } from './types.js';

/** What a connect reads of the core's state at the moment it is called. */
export interface ConnectContext {
  bridge: Bridge;
  platform: Platform;
  /** Whether the bridge stops a running scan before it connects (Capacitor Android's does). */
  stopsScan: boolean;
  phone: PhoneClient | undefined;
  /** The session's key fetch; undefined without a session. */
  keys: Promise<boolean> | undefined;
  /** Every device a scan showed, by uuid (the native scan cache). */
  seen: ReadonlyMap<string, ScanDevice>;
  wait: Wait;
  emit: Emit;
  quietly: <T>(p: Promise<T>) => Promise<T | undefined>;
  /** Android: whether the app holds its Bluetooth permissions (true without a phone). */
  permissionsGranted: () => Promise<boolean>;
  radioContext: () => RadioContext;
  /** Whether this connect is still the latest (a newer connect or disconnect ends its show). */
  current: () => boolean;
}

/**
 * A connect (plain or recovery) in the native modules' order of checks: the device must be
 * in the scan cache, the SDK initialised, the keys fetched; the simulator's refusals map onto
 * the bridge's errors. Kept apart from the core, which only tracks runs and sessions.
 * Resolves whether the connect was sent (false: refused locally, shown as a handshake failure).
 */
export async function connectPhone(body: ConnectRequest, c: ConnectContext): Promise<boolean> {
  const { phone } = c;
  const known =
    (body.uuid && c.seen.get(body.uuid)) ||
    [...c.seen.values()].find((d) => d.serialNumber === body.serialNumber);
  const capAndroid = c.bridge === 'capacitor' && c.platform === 'android';
  // The Capacitor Android plugin asks for BLUETOOTH_CONNECT before anything else, so a phone
  // whose user denied it refuses even a device no scan showed.
  if (capAndroid && !(await c.permissionsGranted()))
    throw connectRefused(c.radioContext(), 'PERMISSION_DENIED');
  if (!known) throw new BridgeError('ERR_PLAUD_UNKNOWN_DEVICE', MESSAGES.unknownDevice);
  // The Capacitor Android plugin looks the device up, then checks the SDK is initialised.
  if (!phone)
    throw capAndroid
      ? new BridgeError('ERR_PLAUD', CAPACITOR_MESSAGES.notInitialised)
      : new BridgeError('ERR_PLAUD_UNKNOWN_DEVICE', MESSAGES.unknownDevice);
  if (c.stopsScan) await c.quietly(phone.stopScan());
  if (!c.keys || !(await c.keys)) {
    await c.quietly(phone.disconnect());
    void showLocalRefusal({
      platform: c.platform,
      wait: c.wait,
      emit: c.emit,
      uuid: known.uuid,
      reason: 'HANDSHAKE_FAIL',
      message: 'partner key pair not ready: the token is not valid where the SDK fetches its keys',
      current: c.current,
    });
    return false;
  }
  try {
    await phone.connect(c.stopsScan ? body : { ...body, keep_scanning: true });
  } catch (e) {
    // The plugin knows it from an earlier scan (its map is never cleared) but this phone's
    // radio does not reach it now: resolved, then the SDK's failed connection.
    if (isProtocol(e, 404) && e.detail === 'UNKNOWN_DEVICE') {
      void showUnreachable({
        platform: c.platform,
        wait: c.wait,
        emit: c.emit,
        uuid: known.uuid,
        current: c.current,
      });
      return false;
    }
    const radio = radioRefusal(e);
    if (radio) throw connectRefused(c.radioContext(), radio);
    if (isProtocol(e, 422) && body.pinned_id)
      throw new BridgeError('ERR_PLAUD_ARGS', MESSAGES.historicalIdInvalid);
    if (isProtocol(e, 404) && e.detail === 'PHONE_NOT_FOUND')
      throw new BridgeError('ERR_PLAUD_CONNECT', MESSAGES.phoneForgotten);
    throw new BridgeError('ERR_PLAUD_CONNECT', e instanceof ProtocolError ? e.reason : (e as Error).message);
  }
  return true;
}
