import type { ErrorObject } from 'ajv';
import type { ValidationIssue } from '../core/errors.js';

/**
 * Turn ajv errors into FastAPI/pydantic-style issues (`loc`, `msg`, `type`), the shape the
 * live backend most likely uses for 422s. Branch noise of anyOf/oneOf is dropped when a more
 * specific error exists for the same field.
 */
export function toIssues(errors: ErrorObject[], where: string, data: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const seen = new Set<string>();
  const specific = errors.filter(
    (e) => !['anyOf', 'oneOf', 'if', 'then', 'else', 'propertyNames'].includes(e.keyword),
  );
  for (const e of specific.length > 0 ? specific : errors) {
    const path = e.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    const p = e.params as Record<string, unknown>;
    if (e.keyword === 'required') path.push(String(p.missingProperty));
    if (e.keyword === 'additionalProperties') path.push(String(p.additionalProperty));
    if (e.keyword === 'unevaluatedProperties') path.push(String(p.unevaluatedProperty));
    // A key broke `propertyNames`: name the key itself, not the object holding it.
    if (e.propertyName !== undefined) path.push(e.propertyName);
    const loc = [where, ...path];
    const issue = describe(e, p);
    const key = `${loc.join('.')}|${issue.type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const input =
      e.keyword === 'required'
        ? undefined
        : e.propertyName !== undefined
          ? e.propertyName
          : valueAt(data, path);
    out.push({ loc, ...issue, ...(input === undefined ? {} : { input }) });
  }
  return out;
}

function describe(
  e: ErrorObject,
  p: Record<string, unknown>,
): { msg: string; type: string; ctx?: Record<string, unknown> } {
  switch (e.keyword) {
    case 'required':
      return { msg: 'Field required', type: 'missing' };
    case 'minLength':
      return {
        msg: `String should have at least ${p.limit} characters`,
        type: 'string_too_short',
        ctx: { min_length: p.limit },
      };
    case 'maxLength':
      return {
        msg: `String should have at most ${p.limit} characters`,
        type: 'string_too_long',
        ctx: { max_length: p.limit },
      };
    case 'minimum':
      return {
        msg: `Input should be greater than or equal to ${p.limit}`,
        type: 'greater_than_equal',
        ctx: { ge: p.limit },
      };
    case 'maximum':
      return {
        msg: `Input should be less than or equal to ${p.limit}`,
        type: 'less_than_equal',
        ctx: { le: p.limit },
      };
    case 'enum':
      return {
        msg: `Input should be ${(p.allowedValues as unknown[]).map((v) => `'${v}'`).join(', ')}`,
        type: 'enum',
        ctx: { expected: p.allowedValues },
      };
    case 'pattern':
      return {
        msg: `String should match pattern '${p.pattern}'`,
        type: 'string_pattern_mismatch',
        ctx: { pattern: p.pattern },
      };
    case 'type':
      return { msg: `Input should be a valid ${p.type}`, type: `${p.type}_type` };
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return { msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    case 'format':
      return { msg: `Input should be a valid ${p.format}`, type: `${p.format}_parsing` };
    case 'minItems':
      return { msg: `List should have at least ${p.limit} items`, type: 'too_short' };
    case 'maxItems':
      return { msg: `List should have at most ${p.limit} items`, type: 'too_long' };
    default:
      return { msg: e.message ?? 'Invalid value', type: e.keyword };
  }
}

function valueAt(data: unknown, path: (string | number)[]): unknown {
  let cur = data;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}
