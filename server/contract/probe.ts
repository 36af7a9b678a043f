import { request } from 'node:https';
import { liveSettings, targetKind, urlSettings } from '../../contracts/target/settings.js';

/** Where a run's target answers, or undefined for the in-process simulator (nothing to reach). */
export function targetUrl(env: NodeJS.ProcessEnv): string | undefined {
  const kind = targetKind(env);
  if (kind === 'url') return urlSettings(env).root;
  if (kind === 'live') return liveSettings(env).base;
  return undefined;
}

/** The low-level reason of a failed fetch: `ECONNREFUSED 127.0.0.1:9`, `ENOTFOUND host`, a TLS code. */
function describeFetchError(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: Error & { code?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = err.cause;
  const message = cause?.message?.split('\n')[0]?.trim();
  if (cause?.code && /SSL|TLS|CERT/.test(cause.code))
    // OpenSSL's own text is a library trace; its code says it (wrong version = not TLS at all).
    return `TLS error ${cause.code}${message && !message.includes('routines:') ? ` (${message})` : ''}`;
  if (cause?.code && message) return message.includes(cause.code) ? message : `${cause.code}: ${message}`;
  return message ?? err.message;
}

/**
 * One request to the target before any scenario runs: any HTTP answer means reachable. A run
 * against a target that is down, unknown to DNS, refusing TLS or silent must fail saying so,
 * not report every scenario as skipped. Returns the reason when unreachable.
 */
export async function probe(url: string, timeoutMs: number, ca?: string): Promise<string | undefined> {
  if (ca) return probeTrusting(url, timeoutMs, ca);
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

/** The probe of an https target whose CA is given (fetch on Node 20 takes no CA of its own). */
function probeTrusting(url: string, timeoutMs: number, ca: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', ca, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(undefined);
    });
    req.once('timeout', () => {
      req.destroy();
      resolve(`no answer within ${timeoutMs} ms`);
    });
    req.once('error', (e: NodeJS.ErrnoException) => {
      const code = e.code && !e.message.includes(e.code) ? `${e.code}: ` : '';
      resolve(`${/SSL|TLS|CERT/.test(e.code ?? '') ? 'TLS error ' : ''}${code}${e.message}`);
    });
    req.end();
  });
}
