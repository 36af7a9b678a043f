import type { RequestHandler } from 'express';
import { publicUrlOf } from '../http/mountOperations.js';

const COLLECTION = '/open/partner/ai/transcriptions';
const ITEM_WITH_SLASH = /^\/open\/partner\/ai\/transcriptions\/[^/]+\/$/;

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
    let target: string | undefined;
    if (req.path === COLLECTION) target = `${COLLECTION}/`;
    else if (ITEM_WITH_SLASH.test(req.path)) target = req.path.slice(0, -1);
    if (target === undefined) return next();
    const q = req.originalUrl.indexOf('?');
    const query = q >= 0 ? req.originalUrl.slice(q) : '';
    // Empty body, as Starlette's RedirectResponse.
    res
      .status(307)
      .location(`${publicUrlOf(req, publicUrl)}${req.baseUrl}${target}${query}`)
      .end();
  };
}
