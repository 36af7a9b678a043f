import { type ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { liveSettings, targetKind, urlSettings } from '../../contracts/target/settings.js';

/** Where a run's target answers, or undefined for the in-process simulator (nothing to reach). */
export function targetUrl(env: NodeJS.ProcessEnv): string | undefined {
  const kind = targetKind(env);
  if (kind === 'url') return urlSettings(env).root;
  if (kind === 'live') return liveSettings(env).base;
  return undefined;
}

/** The low-level reason of a failed request: `ECONNREFUSED 127.0.0.1:9`, `ENOTFOUND host`, a TLS code. */
function describeError(e: Error & { code?: string }, timeoutMs: number): string {
  if (e.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const message = e.message?.split('\n')[0]?.trim();
  if (e.code && /SSL|TLS|CERT/.test(e.code))
    // OpenSSL's own text is a library trace; its code says it (wrong version = not TLS at all).
    return `TLS error ${e.code}${message && !message.includes('routines:') ? ` (${message})` : ''}`;
  if (e.code && message) return message.includes(e.code) ? message : `${e.code}: ${message}`;
  return message || String(e);
}

/**
 * One request to the target before any scenario runs: any HTTP answer means reachable. A run
 * against a target that is down, unknown to DNS, refusing TLS or silent must fail saying so,
 * not report every scenario as skipped. Returns the reason when unreachable. Node's own
 * http(s) request, not fetch: fetch loads and compiles undici first, ~70 ms of CPU per run
 * (issue 33), and on Node 20 takes no CA of its own (`ca`: an https simulator's, trusted).
 */
export function probe(url: string, timeoutMs: number, ca?: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    // agent: false: a connection of its own, closed after the answer.
    const options = { method: 'GET', agent: false, ...(ca ? { ca } : {}) };
    let req: ClientRequest | undefined;
    const timer = setTimeout(() => {
      const e = new Error(`no answer within ${timeoutMs} ms`);
      e.name = 'TimeoutError';
      req?.destroy(e);
    }, timeoutMs);
    const done = (reason: string | undefined) => {
      clearTimeout(timer);
      resolve(reason);
    };
    try {
      req = (url.startsWith('https:') ? httpsRequest : httpRequest)(url, options, (res) => {
        res.destroy();
        done(undefined);
      });
    } catch (e) {
      done(describeError(e as Error, timeoutMs));
      return;
    }
    req.on('error', (e) => done(describeError(e, timeoutMs)));
    // https: the request is written once the handshake is done, so a TLS failure is reported
    // as the handshake's (ERR_SSL_WRONG_VERSION_NUMBER), not as the failed write it causes.
    if (url.startsWith('https:')) req.once('socket', (s) => s.once('secureConnect', () => req?.end()));
    else req.end();
  });
}
