import { MAX_BODY_DEPTH } from './jsonLimits.js';
import { BACKSLASH, QUOTE, wellFormedEnd } from './jsonWellFormed.js';

/** Whether the text holds at most `n` opening brackets (found by indexOf, far faster than a scan). */
function fewOpenings(text: string, n: number): boolean {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i >= 0; i = text.indexOf(bracket, i + 1))
      if (++count > n) return false;
  }
  return true;
}

/**
 * The JSON text with every array or object nested `max` deep or deeper (the top-level value
 * is at depth 0) emptied in place (`[]`, `{}`), or undefined when none is (the text is parsed
 * as it is) or when an emptied part is not JSON that JSON.parse reads (so parsing the whole
 * text reports its error as always).
 *
 * Parsing a body nested 100,000 deep costs about 70 ms, only for `jsonLimitIssues` to refuse
 * it as `too_deep` at depth `max`; it never looks inside what it refuses, and emptying keeps
 * every key, duplicate and `1e400` before, beside and after, so its issues stay the same.
 * One pass over the text: strings skipped by their quotes, brackets counted outside them.
 */
export function prunedTooDeep(text: string, max = MAX_BODY_DEPTH): string | undefined {
  if (fewOpenings(text, max)) return undefined;
  let parts: string[] | undefined;
  let kept = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === QUOTE) inString = false;
      else if (c === BACKSLASH) i++;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (depth < max) depth++;
      else {
        const end = wellFormedEnd(text, i);
        if (end < 0) return undefined;
        parts ??= [];
        parts.push(text.slice(kept, i), c === 0x7b ? '{}' : '[]');
        kept = end;
        i = end - 1;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  if (!parts) return undefined;
  parts.push(text.slice(kept));
  return parts.join('');
}
