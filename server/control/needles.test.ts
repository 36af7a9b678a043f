import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Needles } from './needles.js';

const found = (needles: string[], text: string) => {
  const n = new Needles<number>();
  needles.forEach((s, i) => {
    n.add(s, i);
  });
  return n.find(text).sort((a, b) => a - b);
};

describe('Needles', () => {
  it('finds every needle in the text once, overlapping, nested and repeated ones too', () => {
    expect(found(['he', 'she', 'his', 'hers', 'x'], 'ushers she')).toEqual([0, 1, 3]);
    expect(found(['aa', 'a', 'aaa', 'b'], 'aaaa')).toEqual([0, 1, 2]);
    expect(found(['/uploads/', 'é', '🎵'], '/x/uploads/é🎵')).toEqual([0, 1, 2]);
    expect(found(['same', 'same'], 'the same')).toEqual([0, 1]);
    expect(found(['abc'], 'ab')).toEqual([]);
  });

  it('agrees with String.includes on any needles and text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'c', '/'), minLength: 1, maxLength: 5 }), {
          maxLength: 30,
        }),
        fc.string({ unit: fc.constantFrom('a', 'b', 'c', '/'), maxLength: 40 }),
        (needles, text) => {
          const want = needles.flatMap((s, i) => (text.includes(s) ? [i] : []));
          expect(found(needles, text)).toEqual(want);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds needles added after a search', () => {
    const n = new Needles<string>();
    n.add('one', 'one');
    expect(n.find('one two')).toEqual(['one']);
    n.add('two', 'two');
    expect(n.find('one two').sort()).toEqual(['one', 'two']);
  });
});
