import { API_PREFIXES, STORAGE_PREFIX } from '../http/apiPrefixes.js';
import { apiSpec } from '../spec/openapi.js';

interface Route {
  id: string;
  method: string;
  pattern: RegExp;
}

let routes: Route[] | undefined;

/** The operations of openapi.yaml as patterns over simulator paths (every API prefix, /storage). */
function table(): Route[] {
  if (routes) return routes;
  const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const apiRoots = API_PREFIXES.map(([p]) => escapeRe(p)).join('|');
  routes = [...apiSpec().operations.values()].map((op) => {
    const path = escapeRe(op.path).replace(/\\\{[^}]+\\\}/g, '[^/]+');
    const root = op.storage ? escapeRe(STORAGE_PREFIX) : `(?:${apiRoots})`;
    // A trailing slash is tolerated: it is the same operation (answered 307 by its route).
    return { id: op.id, method: op.method.toUpperCase(), pattern: new RegExp(`^${root}${path}/?$`) };
  });
  return routes;
}

/** Live's storage (S3 hosts, recorded as `/storage/~s3/<host>/<key>`) by method alone. */
const S3_OPERATIONS: Record<string, string> = {
  PUT: 'uploadPart',
  OPTIONS: 'uploadPartPreflight',
  GET: 'downloadFile',
  HEAD: 'headFile',
};

/** The operationId a request to simulator path `path` calls, or undefined when none. */
export function operationOf(method: string, path: string): string | undefined {
  const bare = path.split('?')[0]!;
  if (bare.startsWith(`${STORAGE_PREFIX}/~s3/`)) return S3_OPERATIONS[method.toUpperCase()];
  const m = method.toUpperCase() === 'HEAD' ? ['HEAD', 'GET'] : [method.toUpperCase()];
  for (const want of m) {
    const hit = table().find((r) => r.method === want && r.pattern.test(bare));
    if (hit) return hit.id;
  }
  return undefined;
}
