import { liveSettings, targetKind, urlSettings } from '../../contracts/target/settings.js';

/** Where a run's target answers, or undefined for the in-process simulator (nothing to reach). */
export function targetUrl(env: NodeJS.ProcessEnv): string | undefined {
  const kind = targetKind(env);
  if (kind === 'url') return urlSettings(env).root;
  if (kind === 'live') return liveSettings(env).base;
  return undefined;
}

/** The low-level reason of a failed fetch: `ECONNREFUSED 127.0.0.1:9`, `ENOTFOUND host`, a TLS code. */
export function describeFetchError(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: Error & { code?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = err.cause;
  if (cause?.code && cause.message)
    return cause.message.includes(cause.code) ? cause.message : `${cause.code}: ${cause.message}`;
  return cause?.message ?? err.message;
}

/**
 * One request to the target before any scenario runs: any HTTP answer means reachable. A run
 * against a target that is down, unknown to DNS, refusing TLS or silent must fail saying so,
 * not report every scenario as skipped. Returns the reason when unreachable.
 */
export async function probe(url: string, timeoutMs: number): Promise<string | undefined> {
  try {
    const res = await fetch(url, {
      method: 'GET',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    return undefined;
  } catch (e) {
    return describeFetchError(e, timeoutMs);
  }
}
