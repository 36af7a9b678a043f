import { describe, expect, it } from 'vitest';
import { parseRange } from './range.js';
import { bareEtag, multipartEtag } from './records.js';

describe('parseRange (as S3 reads Range)', () => {
  it.each([
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=90-', { start: 90, end: 99 }],
    ['bytes=-5', { start: 95, end: 99 }],
    ['bytes=-500', { start: 0, end: 99 }],
    ['bytes=50-5000', { start: 50, end: 99 }],
    ['bytes=100-', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
    ['bytes=9-1', undefined],
    ['bytes=0-1,5-9', undefined],
    ['items=0-1', undefined],
    [undefined, undefined],
  ])('%s of 100 bytes → %j', (header, want) => {
    expect(parseRange(header, 100)).toEqual(want);
  });
});

describe('ETags', () => {
  it('multipart ETag is the MD5 of the binary part MD5s, with the part count', () => {
    // MD5 of 5242881 × "a", three times: the S3 test vector.
    const part = 'c4c753e69bb853187f5854c46cf801c6';
    expect(multipartEtag([part, part, part])).toBe('"c7cb0938a47e31f70cf07028d22e6913-3"');
  });

  it('accepts quoted, unquoted and weak forms', () => {
    for (const e of ['"abc"', 'abc', ' "abc" ', 'W/"abc"']) expect(bareEtag(e)).toBe('abc');
  });
});
