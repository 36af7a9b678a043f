import type { CoreOptions } from './coreSession.js';
import { printOneLine } from './reachability.js';
import type { Timing } from './timing.js';
import type { Bridge, Platform } from './types.js';

/** How a double is set up: one phone talking to one simulator. */
export interface DoubleOptions {
  /** The simulator (default `http://127.0.0.1:4010`): live hosts in customDomain map onto it. */
  simulatorUrl?: string;
  /** Which phone's SDK to play (default `ios`): how a lock looks, the uuid form, Android's JP default. */
  platform?: Platform;
  /**
   * `hardware` (default): the device's events come when they would on a phone, on the app's
   * simulated clock (freeze it and move it to step through); `instant` for unit tests.
   */
  timing?: Timing;
  /**
   * Android: where the SDK's own key fetch (gen-key) goes. Default `customDomain`: both
   * official bridges repoint the SDK's partner client there in `initSDK` (the React Native
   * module since 2026-08-14). `jp` plays the native SDK's own default, or an older wrapper
   * without that call: a US token then fails every handshake, as on such a phone.
   * iOS always follows customDomain.
   */
  sdkBaseUrl?: 'jp' | 'customDomain';
  /**
   * Whether `connectBleDevice` stops a running scan. Default `stop` on Capacitor Android only:
   * its plugin stops the scan before connecting, noting that the Android SDK's connect does
   * not. The React Native module (both platforms) and the Capacitor iOS plugin do not, so
   * there (`continue`) the scan runs to its window's end and its `scanTimeout` still comes.
   */
  scanOnConnect?: 'stop' | 'continue';
  /** Real-time polling interval of the device's events (default 100 ms; 20 ms when instant). */
  pollMs?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
  /**
   * Failures talking to the simulator in the background (default: one line on stderr). A lost
   * simulator is reported once, until it answers again.
   */
  onError?: (e: unknown) => void;
}

const DEFAULT_SIMULATOR_URL = 'http://127.0.0.1:4010';

export function coreOptions(o: DoubleOptions, bridge: Bridge): CoreOptions {
  const timing = o.timing ?? 'hardware';
  const platform = o.platform ?? 'ios';
  return {
    bridge,
    platform,
    simulatorUrl: o.simulatorUrl ?? DEFAULT_SIMULATOR_URL,
    timing,
    sdkBaseUrl: o.sdkBaseUrl ?? 'customDomain',
    scanOnConnect:
      o.scanOnConnect ?? (bridge === 'capacitor' && platform === 'android' ? 'stop' : 'continue'),
    pollMs: o.pollMs ?? (timing === 'instant' ? 20 : 100),
    fetch: o.fetch ?? ((...a) => globalThis.fetch(...a)),
    onError: o.onError ?? printOneLine,
  };
}
