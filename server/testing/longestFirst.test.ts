import { describe, expect, it } from 'vitest';
import { arrange } from './longestFirst.js';

const file = (project: string, name: string, seconds: number) => ({
  project: { name: project },
  name,
  seconds,
});
const names = (list: { name: string }[]) => list.map((f) => f.name);
const byTime = (f: { seconds: number }) => f.seconds;

describe('the sequencer arranges a group', () => {
  const files = [
    file('unit', 'u-short', 1),
    file('sdk', 's-short', 2),
    file('unit', 'u-long', 30),
    file('contracts', 'c-a', 1),
    file('unit', 'u-mid', 10),
    file('sdk', 's-long', 8),
    file('unit', 'u-next', 20),
  ];

  it("puts the other projects' files after the largest project's longest, each longest first", () => {
    expect(names(arrange(files, byTime, 1))).toEqual([
      'u-long',
      's-long',
      's-short',
      'c-a',
      'u-next',
      'u-mid',
      'u-short',
    ]);
  });

  it('leaves one worker for them: with three workers two long files lead', () => {
    expect(names(arrange(files, byTime, 2)).slice(0, 3)).toEqual(['u-long', 'u-next', 's-long']);
  });

  it('is plain longest first for one project, and keeps every file once', () => {
    const unit = files.filter((f) => f.project.name === 'unit');
    expect(names(arrange(unit, byTime, 1))).toEqual(['u-long', 'u-next', 'u-mid', 'u-short']);
    expect(arrange(files, byTime, 1)).toHaveLength(files.length);
    expect(arrange([], byTime, 1)).toEqual([]);
  });
});
