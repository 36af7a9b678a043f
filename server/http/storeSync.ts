import type { RequestHandler } from 'express';
import type { Store } from '../store/store.js';
import { simLocals } from './types.js';

/**
 * The first thing every request meets: its locals, then the store's mirrors brought up to
 * date with what other instances wrote, before anything reads them (authentication reads
 * apps, every rule reads clocks). The embedded stores' `sync()` answers undefined, so the
 * request goes on in the same tick with nothing to wait for; only a shared store's promise
 * is awaited. One global middleware, not one per surface: no path to match per request.
 */
export function requestStart(store: Store): RequestHandler {
  return (_req, res, next) => {
    simLocals(res);
    const pending = store.sync();
    if (pending === undefined) next();
    else pending.then(() => next(), next);
  };
}
