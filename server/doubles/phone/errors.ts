/**
 * The bridges' own errors. React Native rejects with a code (`error.code`) and a message;
 * Capacitor rejects with the message alone. The messages are the wrappers' wording where the
 * wrappers have one, so an app's error handling sees what it sees on a phone.
 */
export type BridgeErrorCode =
  | 'ERR_PLAUD_ARGS'
  | 'ERR_PLAUD_PERMISSIONS'
  | 'ERR_PLAUD_UNKNOWN_DEVICE'
  | 'ERR_PLAUD_CONNECT'
  | 'ERR_PLAUD_EXPORT'
  | 'ERR_PLAUD';

export class BridgeError extends Error {
  override name = 'BridgeError';
  constructor(
    readonly code: BridgeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const MESSAGES = {
  tokenRequired: 'userAccessToken is required',
  domainRequired: 'customDomain is required (domain only, no https://)',
  unknownDevice: 'Unknown device — scan first, then connect by uuid or serialNumber',
  sessionRequired: 'sessionId is required',
  historicalIdRequired: 'historicalId is required',
  historicalIdInvalid:
    'historicalId must be a bind_history id (client_user_<uuid>) or a 32-hex handshake token',
  // The SDK's export callback reports these as plain strings (wording is ours: undocumented).
  exportNotConnected: 'device not connected',
  exportNoSession: 'recording not found on the device',
  // The React Native Android module's startScan without the runtime grants.
  scanPermissions: 'Bluetooth permissions were denied — scanning is not possible',
  connectPermissions: 'Bluetooth permissions are denied — cannot open a connection',
  phoneForgotten: 'the simulator no longer knows this phone (a reset forgot it); call initSDK again',
} as const;

/** The device protocol's answer for a phone whose radio its user made unusable. */
export type RadioRefusal = 'PERMISSION_DENIED' | 'BLUETOOTH_OFF';

export function radioRefusal(e: unknown): RadioRefusal | undefined {
  const d = (e as { status?: number; detail?: string } | undefined) ?? {};
  return d.status === 409 && (d.detail === 'PERMISSION_DENIED' || d.detail === 'BLUETOOTH_OFF')
    ? d.detail
    : undefined;
}
