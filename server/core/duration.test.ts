import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it('reads each unit and bare milliseconds', () => {
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration('36h')).toBe(129_600_000);
    expect(parseDuration('90m')).toBe(5_400_000);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('1000')).toBe(1000);
  });

  it('refuses anything else, naming the accepted forms', () => {
    for (const bad of ['', '7 days', '-1d', '1w', 'd', '1e400'])
      expect(() => parseDuration(bad)).toThrow(/such as '7d'/);
  });
});
