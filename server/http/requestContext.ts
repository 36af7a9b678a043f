import type { RequestHandler } from 'express';
import type { Store } from '../store/store.js';
import { simLocals } from './types.js';

/**
 * Step 1 of the pipeline (http/pipeline.ts), first for every request: its shared locals
 * (`res.locals.sim`), then the store's mirrors brought up to date with what other instances
 * wrote, before anything reads them (authentication reads apps, every rule reads clocks). The
 * embedded stores' `sync()` answers undefined, so the request goes on in the same tick; only a
 * shared store's promise is awaited. `then` is the next step, called directly.
 */
export function requestContext(store: Store, then: RequestHandler): RequestHandler {
  return (req, res, next) => {
    simLocals(res);
    const pending = store.sync();
    if (pending === undefined) then(req, res, next);
    else pending.then(() => then(req, res, next), next);
  };
}
