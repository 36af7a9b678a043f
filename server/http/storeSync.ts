import type { RequestHandler } from 'express';
import type { Store } from '../store/store.js';

/**
 * Once per request, before anything reads a mirror (authentication reads apps, every rule
 * reads clocks): bring the store's mirrors up to date with what other instances wrote. The
 * embedded stores answer undefined, so the request goes on in the same tick with nothing to
 * wait for; only a shared store's promise is awaited.
 */
export function storeSync(store: Store): RequestHandler {
  return (_req, _res, next) => {
    const pending = store.sync();
    if (pending === undefined) next();
    else pending.then(() => next(), next);
  };
}
