import { describe, expect, it } from 'vitest';
import { credentialsOf, hasScheme } from './authScheme.js';

describe('credentialsOf', () => {
  it('reads the scheme in any case and keeps the credentials as sent', () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEARER'])
      expect(credentialsOf(`${scheme} eyJ.Ab-c_1`, 'Bearer'), scheme).toBe('eyJ.Ab-c_1');
    for (const scheme of ['Basic', 'basic', 'BASIC'])
      expect(credentialsOf(`${scheme}  ZGVtbzpz\t`, 'Basic'), scheme).toBe('ZGVtbzpz');
  });

  it('is undefined for another scheme, no credentials, more than one token, or no header', () => {
    for (const header of [
      'Basic abc',
      'Bearerabc',
      'Bearer',
      'bearer ',
      'Bearer a b',
      ' Bearer abc',
      '',
      undefined,
      7,
      ['Bearer a'],
    ])
      expect(credentialsOf(header, 'Bearer'), String(header)).toBeUndefined();
  });

  it('tells the scheme alone, whatever follows it (a redacted recording)', () => {
    expect(hasScheme('basic <redacted secret>', 'Basic')).toBe(true);
    expect(hasScheme('Bearer x', 'Basic')).toBe(false);
    expect(hasScheme(undefined, 'Basic')).toBe(false);
  });
});
