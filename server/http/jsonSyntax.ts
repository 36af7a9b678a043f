import type { ValidationIssue } from '../core/errors.js';

const EXCERPT = 24;

/** Whether `text` can still start a JSON document: it parses, or fails only at its end. */
function viable(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch (e) {
    const m = (e as Error).message;
    const at = /at position (\d+)/.exec(m);
    return /Unexpected end of JSON input/.test(m) || (at !== null && Number(at[1]) >= text.length);
  }
}

/**
 * Where the first character that no JSON document can have is. V8 names the position in
 * most messages, not in "Unexpected token ']', … is not valid JSON": then the longest prefix
 * that could still start a document ends there (about 20 parses of at most the 1 MB limit,
 * and only on this error path).
 */
function errorPosition(body: string, message: string): number {
  const at = /at position (\d+)/.exec(message);
  if (at) return Math.min(Number(at[1]), body.length);
  const first = /\S/.exec(body);
  // body-parser's strict mode refuses a body that is not an object or array, valid or not.
  if (first && first[0] !== '{' && first[0] !== '[') return first.index;
  let [lo, hi] = [0, body.length];
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (viable(body.slice(0, mid))) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * A body that is not JSON, as FastAPI answers it (`type: json_invalid`, `loc: ["body",
 * position]`, `ctx.error`), with where it went wrong in words a person can find in their
 * request: line, column and the text around that point (`ctx.excerpt`, at most 48 characters).
 * `err` is body-parser's: the parser's message and the raw body.
 */
export function jsonDecodeIssue(err: { message?: string; body?: unknown }): ValidationIssue {
  const body = typeof err.body === 'string' ? err.body : '';
  const message = err.message ?? 'JSON decode error';
  const position = errorPosition(body, message);
  const before = body.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  const excerpt = body.slice(Math.max(0, position - EXCERPT), position + EXCERPT);
  const error = message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/ in JSON at position \d+/, '')
    .replace(/, (".*"|\.\.\.).* is not valid JSON$/s, '');
  return {
    loc: ['body', position],
    msg: 'JSON decode error',
    type: 'json_invalid',
    input: {},
    ctx: { error, position, line, column, excerpt },
  };
}
