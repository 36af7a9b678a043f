import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Region } from '../domain/apps.js';
import type { MountedOperation } from './mountOperations.js';
import { simLocals } from './types.js';

interface Target {
  chain: RequestHandler[];
  region: Region;
  /** Path parameter names, in order, for a templated path; empty for a fixed one. */
  names: string[];
  pattern?: RegExp;
}

/** Run `chain` as Express would: each handler's `next` starts the following one. */
function run(chain: RequestHandler[], i: number, req: Request, res: Response, next: NextFunction): void {
  const handler = chain[i];
  // The route answers (or throws); it never passes the request on, and handing it to the
  // routers after it ran would run the operation twice.
  if (!handler) return;
  try {
    const out = handler(req, res, (err?: unknown) =>
      err ? next(err) : run(chain, i + 1, req, res, next),
    ) as unknown;
    if (out instanceof Promise) out.then(undefined, next);
  } catch (e) {
    next(e);
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One look-up, keyed by method and path, in front of the mounted routers: a request that
 * spells an operation's path exactly goes straight to that operation's handlers, instead of
 * walking a dozen layers (surface mounts, the storage router, every route's pattern) that
 * cost more than the operation itself. Anything else (a trailing slash, other case, HEAD, a
 * wrong method, an unknown path, a malformed escape) falls through to the routers, which stay
 * the one place that decides those answers. `skip` names paths the routers treat specially.
 */
export function operationDispatcher(
  prefixes: ReadonlyArray<readonly [string, Region]>,
  mounted: MountedOperation[],
  skip: (path: string) => boolean,
): RequestHandler {
  // Method, then path: no `${method} ${path}` key string built (and hashed) per request.
  const fixed = new Map<string, Map<string, Target>>();
  const templated = new Map<string, Target[]>();
  for (const [prefix, region] of prefixes) {
    for (const { op, chain } of mounted) {
      if (skip(op.path)) continue;
      const method = op.method.toUpperCase();
      const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      if (names.length === 0) {
        const paths = fixed.get(method) ?? new Map<string, Target>();
        paths.set(prefix + op.path, { chain, region, names });
        fixed.set(method, paths);
        continue;
      }
      const source = escapeRegExp(prefix + op.path).replace(/\\\{[^}]+\\\}/g, '([^/]+)');
      const list = templated.get(method) ?? [];
      list.push({ chain, region, names, pattern: new RegExp(`^${source}$`) });
      templated.set(method, list);
    }
  }
  return (req, res, next) => {
    const url = req.url;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    let target = fixed.get(req.method)?.get(path);
    let params: Record<string, string> = {};
    if (!target) {
      for (const t of templated.get(req.method) ?? []) {
        const m = t.pattern!.exec(path);
        if (!m) continue;
        try {
          params = Object.fromEntries(t.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
        } catch {
          return next(); // a malformed escape: the router answers it
        }
        target = t;
        break;
      }
      if (!target) return next();
    }
    const sim = simLocals(res);
    sim.surface = 'api';
    sim.region = target.region;
    req.params = params;
    run(target.chain, 0, req, res, next);
  };
}
