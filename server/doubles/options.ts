import type { CoreOptions } from './core.js';
import type { Timing } from './timing.js';
import type { Platform } from './types.js';

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
   * Android: where the SDK's own key fetch (gen-key) goes. `jp` is the SDK's default (a US
   * token then fails every handshake, as on a phone); `customDomain` is what an app that
   * repoints the SDK's partner client gets. Default: `jp` for React Native (the official
   * module does not repoint), `customDomain` for Capacitor (the official plugin does).
   * iOS always follows customDomain.
   */
  sdkBaseUrl?: 'jp' | 'customDomain';
  /** Real-time polling interval of the device's events (default 100 ms; 20 ms when instant). */
  pollMs?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** Failures talking to the simulator in the background (default console.error). */
  onError?: (e: unknown) => void;
}

export const DEFAULT_SIMULATOR_URL = 'http://127.0.0.1:4010';

export function coreOptions(o: DoubleOptions, bridge: 'react-native' | 'capacitor'): CoreOptions {
  const timing = o.timing ?? 'hardware';
  return {
    platform: o.platform ?? 'ios',
    simulatorUrl: o.simulatorUrl ?? DEFAULT_SIMULATOR_URL,
    timing,
    sdkBaseUrl: o.sdkBaseUrl ?? (bridge === 'capacitor' ? 'customDomain' : 'jp'),
    pollMs: o.pollMs ?? (timing === 'instant' ? 20 : 100),
    fetch: o.fetch ?? ((...a) => globalThis.fetch(...a)),
    onError: o.onError ?? ((e) => console.error('partner-sim device double:', e)),
  };
}
