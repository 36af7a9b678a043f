import { describe, expect, it } from 'vitest';
import { BoundedMap } from './boundedMap.js';

describe('BoundedMap', () => {
  it('drops the oldest key when a new one would pass the limit', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2).set('c', 3);
    expect([...m.keys()]).toEqual(['b', 'c']);
  });

  it('replacing an existing key drops nothing', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2).set('a', 3);
    expect([...m.entries()]).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
  });
});
