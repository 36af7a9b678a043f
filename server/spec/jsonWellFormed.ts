enum Next {
  Value,
  ValueOrClose,
  Key,
  KeyOrClose,
  Colon,
  AfterValue,
}

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPED = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
const HEX = /^[0-9a-fA-F]{4}$/;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index after the string starting at `i` (a quote), or -1 when it is not one JSON.parse reads. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      const e = text.charCodeAt(j + 1);
      if (e === 0x75) {
        if (!HEX.test(text.slice(j + 2, j + 6))) return -1;
        j += 5;
      } else if (ESCAPED.has(e)) j++;
      else return -1;
    }
  }
  return -1;
}

/** Index after the number, `true`, `false` or `null` starting at `i`, or -1. */
function scalarEnd(text: string, i: number): number {
  for (const word of ['true', 'false', 'null']) if (text.startsWith(word, i)) return i + word.length;
  NUMBER.lastIndex = i;
  return NUMBER.test(text) ? NUMBER.lastIndex : -1;
}

/**
 * Where the array or object starting at `start` (its `[` or `{`) ends, when all of it is JSON
 * that JSON.parse reads (the same grammar: ECMA-404's whitespace, escapes, numbers and
 * literals), else -1. Iterative, so no nesting depth can overflow the stack. It may refuse
 * what JSON.parse reads, never the reverse: a caller falls back to JSON.parse on -1.
 */
export function wellFormedEnd(text: string, start: number): number {
  // The closing bracket each open level expects; a level takes two characters at least. A
  // typed array: pushing 100,000 numbers onto an array cost more than the rest of the walk.
  const closers = new Uint8Array(Math.ceil((text.length - start) / 2) + 1);
  let open = 0;
  let next = Next.Value;
  for (let i = start; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    switch (next) {
      case Next.Value:
      case Next.ValueOrClose:
      case Next.KeyOrClose:
        if ((next === Next.ValueOrClose && c === 0x5d) || (next === Next.KeyOrClose && c === 0x7d)) {
          open--;
          i++;
          next = Next.AfterValue;
        } else if (next === Next.KeyOrClose) {
          next = Next.Key;
        } else if (c === 0x7b || c === 0x5b) {
          closers[open++] = c + 2;
          i++;
          next = c === 0x7b ? Next.KeyOrClose : Next.ValueOrClose;
        } else {
          i = c === QUOTE ? stringEnd(text, i) : scalarEnd(text, i);
          if (i < 0) return -1;
          next = Next.AfterValue;
        }
        break;
      case Next.Key:
        if (c !== QUOTE) return -1;
        i = stringEnd(text, i);
        if (i < 0) return -1;
        next = Next.Colon;
        break;
      case Next.Colon:
        if (c !== 0x3a) return -1;
        i++;
        next = Next.Value;
        break;
      case Next.AfterValue: {
        const closer = closers[open - 1];
        if (c === 0x2c) next = closer === 0x7d ? Next.Key : Next.Value;
        else if (c === closer) open--;
        else return -1;
        i++;
        break;
      }
    }
    if (next === Next.AfterValue && open === 0) return i;
  }
  return -1;
}
