import type { AudioFormat } from './types.js';

/**
 * What the double needs from the world: the radio (the simulator's device protocol) and the
 * SDK's own cloud calls. The bridge core talks only to this, so the radio can be the HTTP
 * device protocol (httpLink.ts) or anything else a test puts in its place.
 */

/** A device in range, as the radio sees it. */
export interface RadioDevice {
  sn: string;
  /** The radio id: MAC-shaped; changes on depair. */
  uuid: string;
  name: string;
  rssi: number;
  supportWiFi: boolean;
}

export interface HandshakeRequest {
  sn: string;
  /** The radio id the app connected by; a stale one (changed by depair) finds no device. */
  uuid: string;
  /** The user token given to initSDK; the device reads the handshake token from its `sub`. */
  userToken: string;
  /** Recovery: a `client_user_…` id from bind_history, pinned as the handshake token. */
  pinnedId?: string;
  /** A forced clear (recovery connects with one). */
  clear: boolean;
}

export type HandshakeOutcome =
  | { ok: true; sn: string; protVersion: number }
  /** `reason` is the Android SDK's enum name: TOKEN_NOT_MARCH, UUID_IS_EMPTY, TIME_OUT, … */
  | { ok: false; reason: string; message?: string };

export interface RadioRecording {
  sessionId: number;
  /** Bytes on the device. */
  size: number;
  /** Seconds. */
  duration: number;
  scene: number;
  channels: number;
  isOgg: boolean;
}

/** A device-side happening the bridge reports: record buttons, voice activity. */
export type RadioEvent =
  | {
      type: 'recordStart' | 'recordResume';
      sessionId: number;
      startTime: number;
      scene: number;
      reason?: number;
    }
  | { type: 'recordStop' | 'recordPause'; sessionId: number; reason: number; fileSize: number };

/** A cloud call's outcome: the SDK only cares whether it worked. */
export type CloudOutcome = { ok: true } | { ok: false; status: number; code?: string };

export interface DeviceLink {
  /** `POST {api}/open/partner/sdk/gen-key` with the user token. */
  genKey(api: string, userToken: string): Promise<CloudOutcome>;
  /** `POST {api}/open/partner/sdk/sn-sign {type, sn}` with the user token. */
  snSign(api: string, userToken: string, sn: string): Promise<CloudOutcome>;
  scan(userToken: string): Promise<RadioDevice[]>;
  handshake(request: HandshakeRequest): Promise<HandshakeOutcome>;
  disconnect(sn: string, userToken: string): Promise<void>;
  /** Unpair on the device: its radio id changes. `status` 0 is success. */
  depair(sn: string, userToken: string, clear: boolean): Promise<{ status: number }>;
  recordings(sn: string, userToken: string): Promise<RadioRecording[]>;
  /** The recording's audio in `format`, or null when the device has no such session. */
  exportAudio(
    sn: string,
    userToken: string,
    sessionId: number,
    format: AudioFormat,
    channels: number,
  ): Promise<{ bytes: Uint8Array; format: AudioFormat } | null>;
  /** Events after `cursor` (undefined: from now on), and the cursor to ask with next. */
  events(
    sn: string,
    userToken: string,
    cursor: string | undefined,
  ): Promise<{ events: RadioEvent[]; cursor: string }>;
}
