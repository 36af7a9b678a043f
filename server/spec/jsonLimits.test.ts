import { describe, expect, it } from 'vitest';
import { jsonLimitIssues, MAX_BODY_DEPTH } from './jsonLimits.js';

const nest = (levels: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

describe('jsonLimitIssues: what no schema states but every stored value needs', () => {
  it('names every non-finite number by its path (JSON.parse makes 1e400 Infinity)', () => {
    const body = JSON.parse('{"times":1e400,"list":[1,-1e400],"ok":2}');
    expect(jsonLimitIssues(body, 'body').map((i) => i.loc)).toEqual([
      ['body', 'times'],
      ['body', 'list', 1],
    ]);
  });

  it('accepts a value nested exactly to the limit, refuses one level more', () => {
    expect(jsonLimitIssues(nest(MAX_BODY_DEPTH - 1), 'body')).toEqual([]);
    const [issue] = jsonLimitIssues(nest(MAX_BODY_DEPTH + 1), 'body');
    expect(issue).toMatchObject({ type: 'too_deep', ctx: { max_depth: MAX_BODY_DEPTH } });
    expect(issue!.loc).toHaveLength(MAX_BODY_DEPTH + 1);
  });

  it('walks a body nested 100,000 deep without overflowing the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(jsonLimitIssues(deep, 'body')).toHaveLength(1);
  });

  it('stops after `max` issues however many there are', () => {
    const many = Array.from({ length: 1000 }, () => Number.POSITIVE_INFINITY);
    expect(jsonLimitIssues(many, 'body', 10)).toHaveLength(10);
  });
});
