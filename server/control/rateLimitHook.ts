import { SimError } from '../core/errors.js';
import type { OperationHook } from '../http/mountOperations.js';
import type { Limit, RateLimiter } from './rateLimiter.js';

const MINUTE = 60_000;
const TOKEN: Limit & { what: string } = {
  group: 'token',
  limit: 10,
  windowMs: MINUTE,
  what: 'token requests',
};
const TRANSCRIPTION: Limit & { what: string } = {
  group: 'transcription',
  limit: 60,
  windowMs: MINUTE,
  what: 'transcription API requests',
};

/**
 * Operations the live service documents a limit for: the partner-token exchange (live notes
 * "Tokens"), and the transcription API, submitting and polling alike (live notes, second pass).
 */
const LIMITS: Record<string, Limit & { what: string }> = {
  getPartnerToken: TOKEN,
  createTranscription: TRANSCRIPTION,
  getTranscription: TRANSCRIPTION,
};

/**
 * `--live-rate-limits`: a limited operation answers 429 with `Retry-After` (in the app's error
 * shape, through the one error handler) once a client id used up its window. Runs after
 * authentication, so the window is per verified client id and a wrong secret or API key never
 * uses up someone's quota.
 */
export function rateLimitHook(limiter: RateLimiter): OperationHook {
  return async (op, _req, _res, auth) => {
    const limit = LIMITS[op.id];
    if (!limit || !auth.app) return false;
    const wait = await limiter.take(auth.app.client_id, limit);
    if (wait === 0) return false;
    throw new SimError(
      429,
      'RATE_LIMITED',
      `At most ${limit.limit} ${limit.what} per ${limit.windowMs / 1000} s per client id; retry in ${wait} s`,
      { headers: { 'Retry-After': String(wait) } },
    );
  };
}
