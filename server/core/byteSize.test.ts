import { describe, expect, it } from 'vitest';
import { parseByteSize } from './byteSize.js';

describe('parseByteSize', () => {
  it('reads each binary unit, any case, and bare bytes', () => {
    expect(parseByteSize('64MiB')).toBe(64 * 1024 ** 2);
    expect(parseByteSize('512 kib')).toBe(512 * 1024);
    expect(parseByteSize('1.5GiB')).toBe(1.5 * 1024 ** 3);
    expect(parseByteSize('100B')).toBe(100);
    expect(parseByteSize('1048576')).toBe(1048576);
  });

  it('refuses anything else, naming the accepted forms', () => {
    for (const bad of ['', '64MB', '-1MiB', 'MiB', '1e400', '64 megabytes'])
      expect(() => parseByteSize(bad)).toThrow(/such as '64MiB'/);
  });
});
