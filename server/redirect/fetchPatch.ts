import { notFoundError, type Redirect } from './hosts.js';

/**
 * Wrap global `fetch` so requests for live hosts go to the simulator. A `Request` input is
 * rebuilt on the new URL with its method, headers, body and signal; a host of a region not
 * enabled fails as a name that does not resolve; everything else passes through untouched.
 */
export function patchFetch(target: Redirect): void {
  const original = globalThis.fetch;
  if (typeof original !== 'function') return;
  const patched: typeof fetch = async (input, init) => {
    const raw = input instanceof Request ? input.url : input instanceof URL ? input.href : String(input);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return original(input, init);
    }
    const to = target(url);
    if (!to) return original(input, init);
    // What undici rejects with when the name does not resolve.
    if (to === 'unresolved') throw new TypeError('fetch failed', { cause: notFoundError(url.hostname) });
    if (!(input instanceof Request)) return original(to, init);
    const hasBody = input.body !== null;
    return original(to, {
      method: input.method,
      headers: input.headers,
      body: hasBody ? await input.arrayBuffer() : undefined,
      signal: input.signal,
      redirect: input.redirect,
      ...init,
    });
  };
  globalThis.fetch = patched;
}
