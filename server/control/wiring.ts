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
  // Runs on every request: the `prefix/` and `prefix?` spellings are built once, not per call.
  const spellings = (p: string) => [p, `${p}/`, `${p}?`] as const;
  const under = (url: string, [p, slash, query]: readonly [string, string, string]) =>
    url === p || url.startsWith(slash) || url.startsWith(query);
  const storage = spellings(storagePrefix);
  const admin = spellings(adminPrefix);
  const api = apiPrefixes.map(spellings);
  // The storage host answers its prefix in any case (app.ts): so does its journal.
  const storageAnyCase = new RegExp(`^${storagePrefix}(?:[/?]|$)`, 'i');
  return (url) => {
    if (under(url, storage)) return 'storage';
    if (under(url, admin)) return 'admin';
    for (const p of api) if (under(url, p)) return 'api';
    return storageAnyCase.test(url) ? 'storage' : undefined;
  };
}
