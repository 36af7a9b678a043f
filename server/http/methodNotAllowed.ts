import type { RequestHandler, Router } from 'express';
import { SimError } from '../core/errors.js';
import type { OperationInfo } from '../spec/openapi.js';

/**
 * The methods each path of a document answers, for the `Allow` header of a 405. Built once at
 * mount time from the mounted operations (GET implies HEAD, as Express serves HEAD from GET).
 */
export function allowedByPath(ops: Iterable<OperationInfo>): Map<string, string[]> {
  const byPath = new Map<string, Set<string>>();
  for (const op of ops) {
    const set = byPath.get(op.expressPath) ?? new Set<string>();
    set.add(op.method.toUpperCase());
    if (op.method === 'get') set.add('HEAD');
    byPath.set(op.expressPath, set);
  }
  return new Map([...byPath].map(([path, set]) => [path, [...set].sort()]));
}

/** The 405 for a known path and a method it does not answer; S3's code on the storage host. */
function methodNotAllowed(method: string, allow: string[], storage: boolean): SimError {
  const headers = { Allow: allow.join(', ') };
  if (storage)
    return new SimError(
      405,
      'MethodNotAllowed',
      'The specified method is not allowed against this resource.',
      {
        headers,
      },
    );
  return new SimError(
    405,
    'METHOD_NOT_ALLOWED',
    `${method} is not allowed here; this path answers ${headers.Allow}`,
    { headers },
  );
}

/**
 * After every operation of a router is mounted: each of its paths answers any other method
 * with 405 and `Allow`, instead of the 404 a client would read as "wrong URL" (FastAPI, which
 * the live service runs on, does the same).
 */
export function mountMethodNotAllowed(router: Router, ops: OperationInfo[]): void {
  const storage = ops.some((op) => op.storage);
  for (const [path, allow] of allowedByPath(ops)) {
    const refuse: RequestHandler = (req) => {
      throw methodNotAllowed(req.method, allow, storage);
    };
    router.all(path, refuse);
  }
}
