import type { RequestHandler } from 'express';

/**
 * The device protocol is called by doubles running in a browser (the Capacitor web double in
 * an app served from another port): any origin, no credentials, preflights answered here.
 */
export const deviceCors: RequestHandler = (req, res, next) => {
  res.set('access-control-allow-origin', '*');
  res.set('access-control-expose-headers', 'x-sim-duration, content-length');
  if (req.method === 'OPTIONS') {
    res.set('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
    res.set(
      'access-control-allow-headers',
      req.get('access-control-request-headers') ?? 'authorization, content-type',
    );
    res.set('access-control-max-age', '600');
    res.status(204).end();
    return;
  }
  next();
};
