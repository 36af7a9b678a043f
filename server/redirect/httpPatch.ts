import http, { type ClientRequest, type RequestOptions } from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { urlToHttpOptions } from 'node:url';
import { notFoundError, type Redirect } from './hosts.js';

type Callback = (res: http.IncomingMessage) => void;
type RequestFn = (...args: unknown[]) => ClientRequest;

/** Node's own reading of `request(url?, options?, callback?)`: one options object and the callback. */
function readArgs(args: unknown[]): { options: RequestOptions; cb: Callback | undefined } {
  let [input, options, cb] = args;
  if (typeof input === 'string') input = urlToHttpOptions(new URL(input));
  else if (input instanceof URL) input = urlToHttpOptions(input);
  else {
    cb = options;
    options = input;
    input = undefined;
  }
  if (typeof options === 'function') return { options: { ...(input as object) }, cb: options as Callback };
  return { options: { ...(input as object), ...(options as object) }, cb: cb as Callback | undefined };
}

/** The options of the same request sent to `to`; an agent of the other protocol is dropped. */
function retarget(options: RequestOptions, to: URL): RequestOptions {
  const agent = options.agent as (http.Agent & { protocol?: string }) | false | undefined;
  return {
    ...options,
    protocol: to.protocol,
    host: to.hostname,
    hostname: to.hostname,
    port: to.port || (to.protocol === 'https:' ? 443 : 80),
    path: `${to.pathname}${to.search}`,
    agent: agent && agent.protocol !== to.protocol ? undefined : agent,
  };
}

/** A lookup that fails as a name that does not resolve, asking no resolver. */
const unresolvable = (host: string, _opts: unknown, cb: (e: Error) => void): void => {
  process.nextTick(cb, notFoundError(host));
};

/**
 * Patch `request` and `get` of `node:http` and `node:https` (both, as `get` calls the
 * module's own `request`, not the exported one) so live hosts go to the simulator; https
 * becomes whatever the simulator speaks. Clients that look the function up at call time
 * (node-fetch, axios via follow-redirects) and named ESM imports (synced below) see it.
 */
export function patchHttp(target: Redirect): void {
  const originals = { 'http:': http.request, 'https:': https.request } as Record<string, RequestFn>;
  const wrap = (defaultProtocol: 'http:' | 'https:', andEnd: boolean): RequestFn => {
    const own = originals[defaultProtocol]!;
    return (...args) => {
      const { options, cb } = readArgs(args);
      const protocol = options.protocol ?? defaultProtocol;
      const hostname = (options.hostname ?? options.host ?? '').replace(/:\d+$/, '');
      let to: URL | 'unresolved' | undefined;
      try {
        to = hostname ? target(new URL(`${protocol}//${hostname}${options.path ?? '/'}`)) : undefined;
      } catch {
        to = undefined;
      }
      const req =
        to === 'unresolved'
          ? // The request as given, its lookup failing as the name's does on live: nothing is asked.
            own({ ...options, lookup: unresolvable }, cb)
          : to
            ? originals[to.protocol]!(retarget(options, to), cb)
            : own(...args);
      if (andEnd) req.end();
      return req;
    };
  };
  Object.assign(http, { request: wrap('http:', false), get: wrap('http:', true) });
  Object.assign(https, { request: wrap('https:', false), get: wrap('https:', true) });
  syncBuiltinESMExports();
}
