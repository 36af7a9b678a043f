import { SimError } from '../core/errors.js';
import type { OperationHook } from '../http/mountOperations.js';
import type { RateLimiter } from './rateLimiter.js';

/** Operations the live service documents a limit for (live notes "Tokens"). */
const LIMITED = new Set(['getPartnerToken']);

/**
 * `--live-rate-limits`: the partner-token exchange answers 429 with `Retry-After` once a
 * client id made `limit` requests within the window. Runs after authentication, so the
 * window is per verified client id and a wrong secret never uses up someone's quota.
 */
export function rateLimitHook(limiter: RateLimiter): OperationHook {
  return (op, _req, _res, auth) => {
    if (!LIMITED.has(op.id) || !auth.app) return false;
    const wait = limiter.take(auth.app.client_id);
    if (wait === 0) return false;
    throw new SimError(
      429,
      'RATE_LIMITED',
      `At most ${limiter.limit} token requests per ${limiter.windowMs / 1000} s per client id; retry in ${wait} s`,
      { headers: { 'Retry-After': String(wait) } },
    );
  };
}
