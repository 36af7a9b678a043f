/**
 * A copy of a client's value small enough to echo back: nested at most `depth` levels, at most
 * `entries` items per object or array, strings cut at `chars`. Errors echo what was sent (the
 * `input` and `loc` of a 422), and a body nested 100,000 deep or holding a 1 MB key would
 * otherwise overflow JSON.stringify's stack or answer megabytes. Recursion is bounded by
 * `depth`, so this never overflows itself.
 */
export interface Bounds {
  depth: number;
  entries: number;
  chars: number;
}

const ECHO_BOUNDS: Bounds = { depth: 5, entries: 20, chars: 200 };
export const TRUNCATED = '…';

export const boundedString = (s: string, chars = ECHO_BOUNDS.chars): string =>
  s.length > chars ? `${s.slice(0, chars)}${TRUNCATED}` : s;

export function bounded(value: unknown, bounds: Bounds = ECHO_BOUNDS, level = 0): unknown {
  if (typeof value === 'string') return boundedString(value, bounds.chars);
  if (value === null || typeof value !== 'object') return value;
  if (level >= bounds.depth) return TRUNCATED;
  if (Array.isArray(value)) {
    const items = value.slice(0, bounds.entries).map((v) => bounded(v, bounds, level + 1));
    return value.length > bounds.entries ? [...items, TRUNCATED] : items;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (n++ === bounds.entries) {
      out[TRUNCATED] = TRUNCATED;
      break;
    }
    out[boundedString(key, bounds.chars)] = bounded(
      (value as Record<string, unknown>)[key],
      bounds,
      level + 1,
    );
  }
  return out;
}
