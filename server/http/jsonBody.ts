import { createRequire } from 'node:module';
import type { RequestHandler } from 'express';
import { prunedTooDeep } from '../spec/jsonPrune.js';

type Parse = (body: string) => unknown;
type Read = (
  req: unknown,
  res: unknown,
  next: unknown,
  parse: Parse,
  debug: unknown,
  options: object,
) => void;
interface Internals {
  read: Read;
  normalizeOptions: (options: object, defaultType: string) => object;
}

/**
 * body-parser's own reading (type, charset, inflation, size limit, its errors), exported by
 * its package as `lib/*`. Only the parse step is this module's. These are not its documented
 * API, so package.json takes patch releases only (~2.4.0); jsonBody.test.ts holds the answers
 * to express.json's.
 */
let internals: Internals | undefined;
function bodyParserInternals(): Internals {
  if (internals) return internals;
  const require = createRequire(import.meta.url);
  const { normalizeOptions } = require('body-parser/lib/utils') as Pick<Internals, 'normalizeOptions'>;
  internals = { read: require('body-parser/lib/read') as Read, normalizeOptions };
  return internals;
}

const FIRST_NON_WHITESPACE = /^[ \t\n\r]*([^ \t\n\r]|$)/;

/**
 * body-parser's strict refusal of a body whose first character is neither `{` nor `[`: the
 * message JSON.parse gives for the same text with that character and all after it replaced,
 * the replacement then put back, as body-parser builds it.
 */
function strictViolation(body: string, first: string | undefined): Error {
  const index = first === undefined ? -1 : body.indexOf(first);
  const partial = index === -1 ? '' : body.slice(0, index) + '#'.repeat(body.length - index);
  try {
    JSON.parse(partial);
    return new SyntaxError('strict violation');
  } catch (e) {
    const err = e as SyntaxError;
    const message = err.message.replace(/#+/g, (run) => body.substring(index, index + run.length));
    return Object.assign(new SyntaxError(message), { stack: err.stack?.replace(err.message, message) });
  }
}

const noDebug = () => {};

/**
 * What `express.json` parses, as it parses it (empty body `{}`, strict top level, its errors),
 * except that a body nested deeper than the request validators accept is parsed with its too
 * deep parts emptied (see prunedTooDeep): refused all the same, `too_deep` at the same
 * places, without paying the parse of a body nested 100,000 deep (70 ms a request, for anyone).
 */
export function jsonBody(options: { limit: string }): RequestHandler {
  const { read, normalizeOptions } = bodyParserInternals();
  const readOptions = {
    ...normalizeOptions(options, 'application/json'),
    isValidCharset: (charset: string) => charset.slice(0, 4) === 'utf-',
  };
  const parse: Parse = (body) => {
    if (body.length === 0) return {};
    if (body[0] !== '{' && body[0] !== '[') {
      const first = FIRST_NON_WHITESPACE.exec(body)?.[1] || undefined;
      if (first !== '{' && first !== '[') throw strictViolation(body, first);
    }
    const pruned = prunedTooDeep(body);
    if (pruned !== undefined) {
      try {
        return JSON.parse(pruned);
      } catch {
        // Not JSON outside the emptied parts: the whole body's parse names the error.
      }
    }
    return JSON.parse(body);
  };
  return (req, res, next) => read(req, res, next, parse, noDebug, readOptions);
}
