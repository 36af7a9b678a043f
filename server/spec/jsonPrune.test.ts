import { describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH as L } from './jsonLimits.js';
import { prunedTooDeep } from './jsonPrune.js';

const nest = (depth: number, inner = '1'): string => `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;

describe('prunedTooDeep', () => {
  it('empties what starts at the limit, keeping all around it', () => {
    expect(prunedTooDeep(nest(L + 2))).toBe(nest(L, '{}'));
    expect(prunedTooDeep(`[1e400,${'['.repeat(L + 1)}${']'.repeat(L + 1)},"[{"]`, L)).toBe(
      `[1e400,${'['.repeat(L - 1)}[]${']'.repeat(L - 1)},"[{"]`,
    );
  });

  it('leaves a body within the limit alone', () => {
    expect(prunedTooDeep(nest(L))).toBeUndefined();
    expect(prunedTooDeep(`{"k":"${'{'.repeat(200)}\\"${'['.repeat(200)}"}`)).toBeUndefined();
  });

  it('gives up when an emptied part is not JSON, so the full parse reports the error', () => {
    expect(prunedTooDeep(nest(L + 2, 'tru'))).toBeUndefined();
    expect(prunedTooDeep(nest(L + 2, '"\\x"'))).toBeUndefined();
    expect(prunedTooDeep(`${'['.repeat(L + 2)}1,]]`)).toBeUndefined();
  });
});
