import { redirectTarget } from '../../redirect/hosts.js';
import type { Platform } from './types.js';

/**
 * Where a phone's calls go, from what the app gives `initSDK`: the device protocol mount of
 * the region it names, and the base of the SDK's own cloud calls (gen-key).
 */

/**
 * The partner API base for a host the app names: a live host goes to its region's prefix on
 * the simulator at `simulatorUrl` (as the redirect loader sends it); any other host is taken
 * literally as a simulator's (`127.0.0.1:4010` → `http://127.0.0.1:4010/developer/api`).
 */
export function apiBaseFor(domain: string, simulatorUrl: string): string {
  const host = domain.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
  const target = redirectTarget(new URL(`https://${host}/developer/api`), new URL(simulatorUrl));
  return target ? target.href.replace(/\/+$/, '') : `http://${host}/developer/api`;
}

/** The Android SDK's own partner-API client defaults to the JP region (notes, step 2). */
const ANDROID_DEFAULT_SDK_HOST = 'platform-jp.plaud.ai';

/**
 * The host the SDK sends its own cloud calls to (gen-key, sn-sign). iOS follows
 * `customDomain`; Android goes to JP unless the app repoints the SDK's partner client
 * (`sdkBaseUrl: 'customDomain'`, what both official bridges do in `initSDK`).
 */
export const sdkHostFor = (
  platform: Platform,
  customDomain: string,
  sdkBaseUrl: 'jp' | 'customDomain',
): string => (platform === 'android' && sdkBaseUrl === 'jp' ? ANDROID_DEFAULT_SDK_HOST : customDomain);

/** The device-protocol mount of the region a host names (`/__device`, `/jp/__device`). */
export const deviceMountFor = (host: string, simulatorUrl: string): string =>
  apiBaseFor(host, simulatorUrl).replace(/\/developer\/api$/, '/__device');
