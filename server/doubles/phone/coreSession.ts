import type { Pump } from './eventPump.js';
import { createPhone, type Fetch, isProtocol, type PhoneClient } from './phoneClient.js';
import { deviceMountFor, sdkHostFor } from './sdkCloud.js';
import type { Timing } from './timing.js';
import type { Bridge, InitOptions, Platform } from './types.js';

// What a BridgeCore is made with, the SDK session an initSDK opens, and how it opens the
// phone on the simulator: the part of the core that depends on the app's options, not on calls.

export interface CoreOptions {
  bridge: Bridge;
  platform: Platform;
  /** The simulator the live hosts of `customDomain` stand for. */
  simulatorUrl: string;
  timing: Timing;
  /** Android: where the SDK's own key fetch goes (see sdkApiBase). */
  sdkBaseUrl: 'jp' | 'customDomain';
  /** Whether a connect stops a running scan (see DoubleOptions.scanOnConnect). */
  scanOnConnect: 'stop' | 'continue';
  pollMs: number;
  fetch: Fetch;
  onError: (e: unknown) => void;
}

export interface Session {
  userToken: string;
  userId: string | undefined;
  phone: Promise<PhoneClient | undefined>;
  keys: Promise<boolean>;
  pump?: Pump;
}

/**
 * The SDK fetches its key pair where its base URL points; the device protocol's phone
 * creation is that check (`401 CLIENT_USER_NOT_FOUND` for a token of the other region) and
 * answers CORS, so it also works from a browser page. When the keys cannot arrive (Android's
 * JP default with a US token), the radio still scans: the phone is made where the app's
 * domain points, and every handshake fails on the phone, as on hardware.
 */
export async function openPhone(
  o: CoreOptions,
  init: InitOptions,
): Promise<{ phone: PhoneClient; keys: boolean } | undefined> {
  const { platform, timing, simulatorUrl, fetch: f, sdkBaseUrl } = o;
  const options = { platform, timing };
  const sdkMount = deviceMountFor(sdkHostFor(platform, init.customDomain, sdkBaseUrl), simulatorUrl);
  const appMount = deviceMountFor(init.customDomain, simulatorUrl);
  try {
    return { phone: await createPhone(f, sdkMount, init.userAccessToken, options), keys: true };
  } catch (e) {
    if (!isProtocol(e, 401) || sdkMount === appMount) throw e;
    return { phone: await createPhone(f, appMount, init.userAccessToken, options), keys: false };
  }
}
