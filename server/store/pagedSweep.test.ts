import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memoryStore.js';
import { PagedSweep } from './pagedSweep.js';

describe('PagedSweep', () => {
  it('looks at one page per round, resumes where it stopped, and starts over after the end', async () => {
    const c = new MemoryStore().collection<number>('transcripts');
    for (let i = 0; i < 5; i++) await c.put(`id-${i}`, i);
    const sweep = new PagedSweep(c);
    const seen: number[][] = [];
    const round = async () => {
      const page: number[] = [];
      const removed = await sweep.run(2, async (v, id) => {
        page.push(v);
        return v % 2 === 0 && c.delete(id);
      });
      seen.push(page);
      return [removed, sweep.more];
    };
    expect(await round()).toEqual([1, true]);
    expect(await round()).toEqual([1, true]);
    expect(await round()).toEqual([1, false]);
    // A full page may be the last one: only the next round can tell.
    expect(await round()).toEqual([0, true]);
    expect(await round()).toEqual([0, false]);
    expect(seen).toEqual([[0, 1], [2, 3], [4], [1, 3], []]);
  });
});
