import { CAPACITOR_MESSAGES } from '../capacitor/capacitorShape.js';
import { BridgeError, MESSAGES, type RadioRefusal } from './errors.js';
import type { Emit } from './handshakeShow.js';
import type { Bridge, Platform } from './types.js';

/**
 * How each wrapper answers a phone whose user denied the Bluetooth permissions or turned
 * Bluetooth off (the device protocol's 409s), from embedded-react-native `PlaudSdkModule.kt`
 * / `.swift` and embedded-capacitor `PlaudSdkPlugin.java`. iOS has no runtime grant to ask
 * for: CoreBluetooth never powers on.
 */
export interface RadioContext {
  bridge: Bridge;
  platform: Platform;
  emit: Emit;
  /** The ~18 s power-on wait both bridges poll through before `bluetoothNotPoweredOn`. */
  neverPoweredOn: () => void;
}

/** startScan refused: throws the wrapper's rejection, or resolves with its events to come. */
export function scanRefused(c: RadioContext, radio: RadioRefusal): void {
  const android = c.platform === 'android';
  const rn = c.bridge === 'react-native';
  if (android && radio === 'PERMISSION_DENIED') {
    if (rn) throw new BridgeError('ERR_PLAUD_PERMISSIONS', MESSAGES.scanPermissions);
    void Promise.resolve().then(() => c.emit('scanTimeout', { reason: 'permissionDenied' }));
    throw new BridgeError('ERR_PLAUD_PERMISSIONS', CAPACITOR_MESSAGES.scanPermissions);
  }
  // The RN Android module checks the adapter itself and says so at once.
  if (android && rn) {
    void Promise.resolve().then(() => c.emit('scanTimeout', { reason: 'bluetoothNotPoweredOn' }));
    return;
  }
  c.neverPoweredOn();
}

/**
 * connectBleDevice refused. The Capacitor Android plugin checks both itself (its permission
 * refusal also fires `connectFail {reason: 'permissionDenied'}`); the others issue the
 * connect, which cannot start: ERR_PLAUD_CONNECT saying why (inferred, nothing published).
 */
export function connectRefused(c: RadioContext, radio: RadioRefusal): BridgeError {
  const capAndroid = c.bridge === 'capacitor' && c.platform === 'android';
  if (capAndroid && radio === 'PERMISSION_DENIED') {
    c.emit('connectFail', { reason: 'permissionDenied' });
    return new BridgeError('ERR_PLAUD_PERMISSIONS', CAPACITOR_MESSAGES.connectPermission);
  }
  return new BridgeError(
    'ERR_PLAUD_CONNECT',
    radio === 'BLUETOOTH_OFF' || capAndroid ? CAPACITOR_MESSAGES.bluetoothOff : MESSAGES.connectPermissions,
  );
}
