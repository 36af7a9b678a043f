import type { EventName, Platform, ScanDevice } from '../phone/types.js';
import { SHARED_EVENTS } from '../phone/types.js';

/**
 * The Capacitor plugin's payloads, per platform, in one place: the web double (capacitor.ts)
 * and any other Capacitor stand-in over the shared core shape events here. iOS relays the
 * twelve shared events as they are. The Android build (`PlaudSdkPlugin.java`,
 * device-sdk-notes fourth pass) also relays the SDK's diagnostics and adds fields:
 * `scanResult` devices carry `macAddress` (the MAC again, beside `uuid`), `connectFail` is
 * `{mac, reason, code, message}`.
 */

/**
 * `connectFail.code` / `.message`: the plugin sends the SDK's `errCode` / `errMsg` of the
 * failure, which are unpublished: these numbers and texts are the simulator's.
 */
const CONNECT_FAIL: Record<string, { code: number; message: string }> = {
  HANDSHAKE_FAIL: { code: 1, message: 'handshake failed' },
  SN_NOT_MATCH: { code: 2, message: 'serial number does not match' },
  TOKEN_NOT_MARCH: { code: 3, message: 'token does not match: the device is paired to another user' },
  TIME_OUT: { code: 4, message: 'connection timed out' },
  BLE_CONNECT_FAILED: { code: 5, message: 'Bluetooth connection failed' },
  RECORDING_NOW: { code: 6, message: 'the device is recording' },
  USER_REFUSE: { code: 7, message: 'the user refused on the device' },
  UUID_IS_EMPTY: { code: 8, message: 'handshake token is empty' },
};

/** The event as the Capacitor plugin on `platform` sends it; undefined when it sends none. */
export function capacitorEvent(platform: Platform, name: EventName, data: unknown): unknown {
  if (platform !== 'android') return SHARED_EVENTS.includes(name) ? data : undefined;
  if (name === 'scanResult') {
    const devices = (data as { devices: ScanDevice[] }).devices.map((d) => ({
      name: d.name,
      uuid: d.uuid,
      macAddress: d.uuid,
      serialNumber: d.serialNumber,
      rssi: d.rssi,
      supportWiFi: d.supportWiFi,
    }));
    return { devices };
  }
  if (name === 'connectFail') {
    const f = data as { mac?: string | null; reason?: string | null; message?: string | null };
    const known = f.reason ? CONNECT_FAIL[f.reason] : undefined;
    // A failure the plugin raises itself (permissions) carries its reason alone.
    if (!known) return data;
    return { mac: f.mac ?? null, reason: f.reason, code: known.code, message: f.message ?? known.message };
  }
  return data;
}

/** The plugin's own rejections (its message strings; Capacitor rejects with no code). */
export const CAPACITOR_MESSAGES = {
  notInitialised: 'SDK not initialised — call initSDK before connecting',
  bluetoothOff: 'Bluetooth is off',
  scanPermissions: 'Bluetooth permissions denied',
  connectPermission: 'BLUETOOTH_CONNECT permission denied — cannot open a connection',
} as const;

/**
 * readFile of a file that is not there: the plugin's sentence with the resolved path, then the
 * platform's own reason (Foundation's localizedDescription on iOS, FileNotFoundException's
 * message on Android).
 */
export function readFileMissing(platform: Platform, file: string): string {
  const reason =
    platform === 'ios'
      ? `The file “${file.slice(file.lastIndexOf('/') + 1)}” couldn’t be opened because there is no such file.`
      : `${file} (No such file or directory)`;
  return `Failed to read file at ${file}: ${reason}`;
}
