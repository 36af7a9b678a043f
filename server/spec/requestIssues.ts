import type { ValidateFunction } from 'ajv/dist/2020.js';
import { bodySent } from '../core/bodySent.js';
import type { ValidationIssue } from '../core/errors.js';
import { toIssues } from './issues.js';
import { jsonLimitIssues } from './jsonLimits.js';

export interface RequestParts {
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  params: Record<string, unknown>;
  body: unknown;
  /** Media type of the body as sent, without parameters, or undefined when there is none. */
  contentType: string | undefined;
  hasBody: boolean;
}

export interface RequestValidators {
  query?: ValidateFunction;
  header?: ValidateFunction;
  path?: ValidateFunction;
  bodies: Map<string, ValidateFunction>;
  bodyRequired: boolean;
}

/**
 * A body sent in a media type the operation does not read (curl's `-d` sends form encoding):
 * the schema check would say "Field required" of a field that was sent. The status stays
 * the 422 live gives, but the message names the type received and the one(s) expected.
 */
function unreadBodyIssue(v: RequestValidators, parts: RequestParts): ValidationIssue | undefined {
  const sent = parts.contentType;
  if (v.bodies.has('*/*')) return undefined;
  if (
    sent !== undefined
      ? v.bodies.has(sent) || v.bodies.has(`${sent.split('/')[0]}/*`)
      : !bodySent(parts.headers)
  )
    return undefined;
  const expected = [...v.bodies.keys()];
  const received = sent === undefined ? 'without a Content-Type header' : `as ${sent}`;
  return {
    loc: ['body'],
    msg: `Body sent ${received}, which this operation does not read; send it as ${expected.join(' or ')} (Content-Type: ${expected[0]})`,
    type: 'missing',
  };
}

/** Every way the request breaks the operation's validators, FastAPI-style; empty when valid. */
export function requestIssues(v: RequestValidators, parts: RequestParts): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const check = (fn: ValidateFunction | undefined, data: unknown, loc: string) => {
    if (fn && !fn(data)) issues.push(...toIssues(fn.errors ?? [], loc, data));
  };
  check(v.path, parts.params, 'path');
  check(v.query, parts.query, 'query');
  check(v.header, parts.headers, 'header');
  // After coercion: ajv turns "1e400" into Infinity and accepts it as an integer.
  issues.push(...jsonLimitIssues(parts.params, 'path'), ...jsonLimitIssues(parts.query, 'query'));
  if (v.bodies.size > 0) {
    const unread = unreadBodyIssue(v, parts);
    if (unread) issues.push(unread);
    else if (!parts.hasBody) {
      if (v.bodyRequired) issues.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
    } else {
      const fn = (parts.contentType && v.bodies.get(parts.contentType)) || v.bodies.values().next().value;
      const unstorable = jsonLimitIssues(parts.body, 'body');
      // Refused before the schema: ajv would take Infinity for an integer, and recurse into
      // (or let through) values nested too deep to ever be serialised again.
      if (unstorable.length > 0) issues.push(...unstorable);
      else check(fn, parts.body, 'body');
    }
  }
  return issues;
}
