import type { OperationHook } from '../http/mountOperations.js';
import type { Services } from '../services.js';
import { faultHook } from './faultHook.js';
import { rateLimitHook } from './rateLimitHook.js';
import type { Surface } from './recorder.js';

/**
 * The control plane's hooks, in order. Storage (no credentials): faults first thing. API:
 * faults after authentication (so `match.client_id` is the verified app), then the live rate
 * limit when `--live-rate-limits` is on — an injected fault stands for the infrastructure in
 * front of the service, so it answers before the limiter counts anything.
 */
export function controlHooks(services: Services): { storage: OperationHook[]; api: OperationHook[] } {
  const faults = faultHook(services);
  const api = [faults];
  if (services.deps.config.liveRateLimits) api.push(rateLimitHook(services.rateLimits));
  return { storage: [faults], api };
}

/** Which surface a URL belongs to, from the mount prefixes (undefined: none of them). */
export function surfaceClassifier(
  apiPrefixes: readonly string[],
  storagePrefix: string,
  adminPrefix: string,
): (url: string) => Surface | undefined {
  const under = (url: string, p: string) => url === p || url.startsWith(`${p}/`) || url.startsWith(`${p}?`);
  return (url) => {
    if (under(url, storagePrefix)) return 'storage';
    if (under(url, adminPrefix)) return 'admin';
    if (apiPrefixes.some((p) => under(url, p))) return 'api';
    return undefined;
  };
}
