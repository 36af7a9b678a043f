import { editDistance } from '../core/nearest.js';
import { adminSpec, apiSpec, deviceSpec } from '../spec/openapi.js';
import { ADMIN_PREFIX, API_PREFIXES, DEVICE_PREFIXES, STORAGE_PREFIX } from './apiPrefixes.js';

interface Known {
  method: string;
  path: string;
  segments: string[];
}

let known: Known[] | undefined;

/** Every operation path the simulator serves, with its prefix; listed on the first 404. */
function knownPaths(): Known[] {
  if (known) return known;
  const list: [string, string][] = [];
  for (const op of apiSpec().operations.values()) {
    if (op.storage) continue;
    for (const [prefix] of API_PREFIXES) list.push([op.method, prefix + op.path]);
  }
  for (const op of adminSpec().operations.values()) list.push([op.method, ADMIN_PREFIX + op.path]);
  for (const op of deviceSpec().operations.values())
    for (const [prefix] of DEVICE_PREFIXES) list.push([op.method, prefix + op.path]);
  for (const page of ['/', '/docs', '/openapi.yaml', `${ADMIN_PREFIX}/ui`]) list.push(['get', page]);
  known = list.map(([method, path]) => ({ method: method.toUpperCase(), path, segments: path.split('/') }));
  return known;
}

/** `path` against a known one: a `{parameter}` segment matches whatever the request has there. */
function distance(k: Known, segments: string[]): number {
  const filled = k.segments.map((s, i) => (s.startsWith('{') && segments[i] ? segments[i]! : s));
  return editDistance(segments.join('/'), filled.join('/'));
}

/**
 * The operation a request to an unknown path probably meant (`…/sdk/bindings` for
 * `…/sdk/binding`, a path missing its `/developer/api` prefix), as "GET /developer/api/…", or
 * undefined when nothing is near. Only 404s pay for it; long paths are not compared.
 */
export function nearestPath(method: string, path: string): string | undefined {
  if (path.length > 300 || path.startsWith(STORAGE_PREFIX)) return undefined;
  const segments = path.replace(/\/+$/, '').split('/');
  const allowed = Math.max(2, Math.floor(path.length / 4));
  let best: Known | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const k of knownPaths()) {
    // A path that names an operation without its prefix is as good as one edit away.
    const suffix = path.length > 4 && k.path.endsWith(path) ? 1 : Number.POSITIVE_INFINITY;
    const d = Math.min(suffix, distance(k, segments));
    // Among equally near paths, the one of the request's own method.
    const score = d * 2 + (k.method === method ? 0 : 1);
    if (d <= allowed && score < bestScore) [best, bestScore] = [k, score];
  }
  return best && `${best.method} ${best.path}`;
}
