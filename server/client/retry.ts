/**
 * Retry timing a partner client needs against any HTTP service: exponential back-off with
 * "full jitter" (a uniform wait in [0, min(cap, base·2^attempt)), so many clients that failed
 * together do not retry together), the server's `Retry-After` as a floor, and which answers
 * are worth retrying at all. The upload, the poller and the contract suite's rate limiter all
 * take their timing from here.
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

/**
 * `Retry-After` in ms from `now`: delta-seconds or an HTTP date; undefined when absent or
 * unreadable. Takes a header value or a fetch `Headers`.
 */
export function retryAfterMs(
  value: Headers | string | null | undefined,
  now = Date.now(),
): number | undefined {
  const raw = typeof value === 'object' && value !== null ? value.get('retry-after') : value;
  if (!raw) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Overload and server trouble are worth a retry; other 4xx are the client's own mistake. */
export const isTransient = (status: number): boolean => status === 429 || status === 408 || status >= 500;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** A fetch failure that never produced an answer (reset, refused, DNS, timeout): its short reason. */
export function networkReason(e: unknown): string {
  const err = e as Error & { cause?: { code?: string } };
  return err.cause?.code ?? err.name ?? 'error';
}

/** The request was cut by its AbortSignal (a timeout or a caller's abort). */
export const isAbort = (e: unknown): boolean =>
  e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
