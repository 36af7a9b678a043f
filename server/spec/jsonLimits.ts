import type { ValidationIssue } from '../core/errors.js';

/** Deepest nesting a request body may have: far beyond any documented body, far below a stack's limit. */
export const MAX_BODY_DEPTH = 64;

/**
 * What no schema states but every stored value needs: numbers JSON can hold (not Infinity or
 * NaN, which JSON.parse makes of `1e400` and JSON.stringify writes back as null) and nesting
 * at most MAX_BODY_DEPTH deep (a fault body nested 5,000 deep would be stored, then overflow
 * the stack of every answer that serialises it). Issues name the field; an explicit stack
 * walks the value, so a body nested 100,000 deep cannot overflow the walk itself.
 */
export function jsonLimitIssues(value: unknown, where: string, max = 10): ValidationIssue[] {
  if (isFlatAndFinite(value)) return [];
  interface Node {
    v: unknown;
    depth: number;
    key?: string | number;
    up?: Node;
  }
  const out: ValidationIssue[] = [];
  const locOf = (node: Node) => {
    const loc: (string | number)[] = [];
    for (let n: Node | undefined = node; n?.key !== undefined; n = n.up) loc.unshift(n.key);
    return [where, ...loc];
  };
  const stack: Node[] = [{ v: value, depth: 0 }];
  while (stack.length > 0 && out.length < max) {
    const node = stack.pop()!;
    const { v, depth } = node;
    if (typeof v === 'number' && !Number.isFinite(v)) {
      out.push({ loc: locOf(node), msg: 'Input should be a finite number', type: 'finite_number' });
    } else if (v !== null && typeof v === 'object' && depth >= MAX_BODY_DEPTH) {
      const msg = `Input should be nested at most ${MAX_BODY_DEPTH} levels deep`;
      out.push({ loc: locOf(node), msg, type: 'too_deep', ctx: { max_depth: MAX_BODY_DEPTH } });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], depth: depth + 1, key: i, up: node });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i]!;
        stack.push({ v: x, depth: depth + 1, key: k, up: node });
      }
    }
  }
  return out;
}

/**
 * A query or path parameter object is flat and holds strings: answered without the walk, which
 * runs twice on every request.
 */
function isFlatAndFinite(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if (typeof v === 'number' ? !Number.isFinite(v) : v !== null && typeof v === 'object') return false;
  }
  return true;
}
