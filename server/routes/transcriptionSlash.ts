import type { RequestHandler } from 'express';
import { publicUrlOf } from '../http/mountOperations.js';
import { simLocals } from '../http/types.js';

const COLLECTION = '/open/partner/ai/transcriptions';
const ITEM_WITH_SLASH = /^\/open\/partner\/ai\/transcriptions\/[^/]+\/$/;

/** Where a path (under an API prefix) is redirected to, or undefined when it is not. */
export function slashRedirectTarget(path: string): string | undefined {
  if (path === COLLECTION) return `${COLLECTION}/`;
  if (ITEM_WITH_SLASH.test(path)) return path.slice(0, -1);
  return undefined;
}

/**
 * The live backend behaves like FastAPI, whose router answers a path that differs from a
 * route only by its trailing slash with `307 Temporary Redirect` to the route's spelling
 * (method and body kept by clients). Express would instead accept both spellings silently,
 * hiding a client bug that shows on the live service as an extra round trip (or a failure,
 * for a client that does not follow redirects on POST). So: `POST …/transcriptions` → 307 to
 * `…/transcriptions/`, and `GET …/transcriptions/{id}/` → 307 to `…/transcriptions/{id}`.
 */
export function transcriptionSlashRedirects(publicUrl: string | undefined): RequestHandler {
  return (req, res, next) => {
    const target = slashRedirectTarget(req.path);
    if (target === undefined) return next();
    const q = req.originalUrl.indexOf('?');
    const query = q >= 0 ? req.originalUrl.slice(q) : '';
    const location = `${publicUrlOf(req, publicUrl)}${req.baseUrl}${target}${query}`;
    // Starlette's RedirectResponse has an empty body, so `curl -s` printed nothing and the
    // mistake stayed invisible: the status and Location are kept, and a short JSON body and
    // a warning header say which spelling to use (clients that follow redirects ignore both).
    const hint = `${req.method} ${req.baseUrl}${target} is the path (${target.endsWith('/') ? 'with' : 'without'} the trailing slash); this 307 redirects there`;
    res.status(307).location(location).setHeader('X-Sim-Warning', hint);
    const answer = { detail: 'TRAILING_SLASH_REDIRECT', message: hint, location };
    simLocals(res).answer = answer;
    res.json(answer);
  };
}
