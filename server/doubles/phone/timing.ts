import { HOLD_MS, release } from './reachability.js';

/**
 * The device's own timings live in the simulator: the device protocol schedules scan
 * results, handshakes, lock refusals and depair on the app's simulated clock. What is left
 * here is the phone side the protocol does not play: the SDK answering a call (a file list,
 * export progress) and a handshake the SDK itself gives up on (no key pair). `hardware` waits
 * as a phone does; `instant` keeps every step asynchronous and ordered but waits for nothing.
 */
export type Timing = 'hardware' | 'instant';

const PHONE_MS = {
  /** Bluetooth never powered on (no initSDK): ~60 polls of 300 ms, as both bridges do. */
  poweredOnWait: 18_000,
  /** A radio link (connectState 1) before the SDK's own handshake failure. */
  radioLink: 400,
  /** iOS: a refused handshake drops the link (state 0) this long after state 1. */
  iosRefusalDrop: 1_100,
  /** A remembered device out of reach: the SDK's connect timeout (the protocol's bleFail). */
  bleConnectFail: 3_000,
  /** Android: a handshake that cannot complete fails (state 2) after the SDK's timeout. */
  androidHandshakeTimeout: 10_000,
  fileList: 300,
  /** Per progress step of an export (five steps). */
  exportStep: 200,
} as const;
type WaitName = keyof typeof PHONE_MS;

export type Wait = (name: WaitName) => Promise<void>;

// A macrotask even when instant: events still arrive after the call that caused them returns.
// A long wait (the 10 s handshake timeout, the 18 s power-on wait) only leads to events: it
// does not keep a Node process alive by itself.
export const waitFor =
  (timing: Timing): Wait =>
  (name) =>
    new Promise((resolve) => {
      const ms = timing === 'instant' ? 0 : PHONE_MS[name];
      const t = setTimeout(resolve, ms);
      if (ms > HOLD_MS) release(t);
    });
