import type { CoreOptions } from './core.js';
import { httpLink } from './httpLink.js';
import type { DeviceLink } from './link.js';
import type { Timing } from './timing.js';
import type { Platform } from './types.js';

/** How a double is set up: one phone talking to one simulator. */
export interface DoubleOptions {
  /** The simulator (default `http://127.0.0.1:4010`): live hosts in customDomain map onto it. */
  simulatorUrl?: string;
  /** Which phone's SDK to play (default `ios`): how a lock looks, the uuid form, Android's JP default. */
  platform?: Platform;
  /** `hardware` (default), `instant` for unit tests, or a sleep function (e.g. moving the simulated clock). */
  timing?: Timing;
  /**
   * Android: where the SDK's own gen-key/sn-sign calls go. `jp` is the SDK's default (a US
   * token then fails every handshake, as on a phone); `customDomain` is what an app that
   * repoints the SDK's partner client gets. Default: `jp` for React Native (the official
   * module does not repoint), `customDomain` for Capacitor (the official plugin does).
   * iOS always follows customDomain.
   */
  sdkBaseUrl?: 'jp' | 'customDomain';
  /** Real-time polling interval of device events while connected (default 250 ms). */
  pollMs?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** Replaces the HTTP device protocol (tests of the double itself). */
  link?: DeviceLink;
  /** Failures talking to the simulator in the background (default console.error). */
  onError?: (e: unknown) => void;
}

export const DEFAULT_SIMULATOR_URL = 'http://127.0.0.1:4010';

export function coreOptions(o: DoubleOptions, bridge: 'react-native' | 'capacitor'): CoreOptions {
  const simulatorUrl = o.simulatorUrl ?? DEFAULT_SIMULATOR_URL;
  return {
    platform: o.platform ?? 'ios',
    simulatorUrl,
    link: o.link ?? httpLink({ simulatorUrl, fetch: o.fetch }),
    sdkBaseUrl: o.sdkBaseUrl ?? (bridge === 'capacitor' ? 'customDomain' : 'jp'),
    ...(o.timing ? { timing: o.timing } : {}),
    ...(o.pollMs ? { pollMs: o.pollMs } : {}),
    ...(o.onError ? { onError: o.onError } : {}),
  };
}
