/**
 * Retry timing a partner client needs against any HTTP service: exponential back-off with
 * "full jitter" (a uniform wait in [0, min(cap, base·2^attempt)), so many clients that failed
 * together do not retry together), the server's `Retry-After` as a floor, and which answers
 * are worth retrying at all.
 */
export interface Backoff {
  /** First back-off ceiling, ms. */
  baseMs: number;
  /** Largest back-off ceiling, ms. */
  capMs: number;
  /** Uniform [0, 1) source; Math.random unless a test wants the sequence fixed. */
  random?: () => number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 200, capMs: 10_000 };

/** The wait before retry number `attempt` (0 for the first retry). */
export function fullJitter(attempt: number, b: Backoff): number {
  const ceiling = Math.min(b.capMs, b.baseMs * 2 ** attempt);
  return Math.floor((b.random ?? Math.random)() * ceiling);
}

/** `Retry-After` in ms (delta-seconds or an HTTP date), when the answer carries one. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const raw = headers.get('retry-after');
  if (raw === null) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Overload and server trouble are worth a retry; other 4xx are the client's own mistake. */
export const isTransient = (status: number): boolean => status === 429 || status === 408 || status >= 500;

export const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
