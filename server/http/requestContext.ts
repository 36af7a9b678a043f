import type { RequestHandler } from 'express';
import type { Store } from '../store/store.js';
import type { RequestIds } from './requestId.js';
import { simLocals } from './types.js';

/**
 * Step 1 of the pipeline (http/pipeline.ts), first for every request: its shared locals
 * (`res.locals.sim`) and its `X-Request-Id`, set before anything can answer so every answer
 * (errors, 404s, faults, the control API) carries it; then the store's mirrors brought up to date with what other instances
 * wrote, before anything reads them (authentication reads apps, every rule reads clocks). The
 * embedded stores' `sync()` answers undefined, so the request goes on in the same tick; only a
 * shared store's promise is awaited. `then` is the next step, called directly.
 */
export function requestContext(store: Store, ids: RequestIds, then: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const id = ids.of(req.headers['x-request-id']);
    simLocals(res).requestId = id;
    res.setHeader('X-Request-Id', id);
    const pending = store.sync();
    if (pending === undefined) then(req, res, next);
    else pending.then(() => then(req, res, next), next);
  };
}
