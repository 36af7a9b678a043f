import { redirectTarget } from '../redirect/hosts.js';
import type { Platform } from './types.js';

/**
 * What the SDK derives from `initSDK` before it can talk to a device: the handshake token
 * (from the JWT's `sub`) and where its own cloud calls go (gen-key, sn-sign).
 */

/**
 * The handshake token of a user token: its `sub` without `client_user_` and without hyphens
 * (device-sdk-notes, "Binding, in order" 1). Empty when the token is no JWT or has no `sub`:
 * the handshake then fails with UUID_IS_EMPTY, as on a phone.
 */
export function handshakeTokenOf(userToken: string): string {
  const payload = userToken.split('.')[1];
  if (!payload) return '';
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const sub = (JSON.parse(json) as { sub?: unknown }).sub;
    return typeof sub === 'string' ? pinnedToken(sub) : '';
  } catch {
    return '';
  }
}

/** The handshake token a `client_user_…` id stands for. */
export const pinnedToken = (id: string): string => id.replace(/^client_user_/, '').replace(/-/g, '');

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
export const ANDROID_DEFAULT_SDK_HOST = 'platform-jp.plaud.ai';

/**
 * Where the SDK sends gen-key and sn-sign. iOS follows `customDomain`; Android goes to JP
 * unless the app repoints the SDK's partner client (`sdkBaseUrl: 'customDomain'`, what the
 * official Capacitor Android plugin does; the React Native module does not).
 */
export function sdkApiBase(
  platform: Platform,
  customDomain: string,
  simulatorUrl: string,
  sdkBaseUrl: 'jp' | 'customDomain',
): string {
  const host = platform === 'android' && sdkBaseUrl === 'jp' ? ANDROID_DEFAULT_SDK_HOST : customDomain;
  return apiBaseFor(host, simulatorUrl);
}
