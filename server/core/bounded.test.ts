import { describe, expect, it } from 'vitest';
import { bounded, boundedString, TRUNCATED } from './bounded.js';

describe('bounded: a copy of a client value small enough to echo', () => {
  it('cuts nesting at the depth limit', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10; i++) deep = { a: deep };
    expect(bounded(deep, { depth: 2, entries: 20, chars: 200 })).toEqual({ a: { a: TRUNCATED } });
  });

  it('keeps the first entries of large objects and arrays, and says more were there', () => {
    const obj = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
    const out = bounded(obj) as Record<string, unknown>;
    expect(Object.keys(out)).toHaveLength(21);
    expect(out[TRUNCATED]).toBe(TRUNCATED);
    expect(bounded(Array.from({ length: 30 }, (_, i) => i))).toHaveLength(21);
  });

  it('cuts long strings and long keys', () => {
    expect(boundedString('x'.repeat(500))).toHaveLength(201);
    const out = bounded({ ['k'.repeat(1000)]: 'v'.repeat(1000) }) as Record<string, string>;
    const [key, value] = Object.entries(out)[0]!;
    expect(key).toHaveLength(201);
    expect(value).toHaveLength(201);
  });

  it('leaves small values as they are', () => {
    const v = { a: [1, 'two', null, true], b: { c: 'd' } };
    expect(bounded(v)).toEqual(v);
  });
});
