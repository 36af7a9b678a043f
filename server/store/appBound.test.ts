import { describe, expect, it } from 'vitest';
import { AppBound } from './appBound.js';
import { MemoryStore } from './memoryStore.js';

type Rec = { client_id: string; created_ms: number; busy?: boolean };

function fixture(keep: number) {
  const store = new MemoryStore();
  const col = store.collection<Rec>('files');
  const dropped: string[] = [];
  const bound = new AppBound<Rec>({
    name: 'files',
    collection: col,
    keep,
    order: 'created_ms',
    drop: async (id) => {
      if ((await col.get(id))?.busy) return false;
      dropped.push(id);
      return col.delete(id);
    },
  });
  const add = async (id: string, client_id: string, created_ms: number, busy = false) => {
    await col.put(id, { client_id, created_ms, ...(busy ? { busy } : {}) });
    bound.touch(client_id);
  };
  return { col, bound, add, dropped };
}

describe('AppBound', () => {
  it("keeps each touched app's newest records and removes the oldest, other apps untouched", async () => {
    const { col, bound, add, dropped } = fixture(2);
    for (let i = 1; i <= 5; i++) await add(`a${i}`, 'a', i);
    await add('b1', 'b', 1);
    expect(await bound.sweep(100)).toBe(3);
    expect(dropped).toEqual(['a1', 'a2', 'a3']);
    expect((await col.findBy('client_id', 'a')).map((r) => r.created_ms)).toEqual([4, 5]);
    expect(await col.get('b1')).toBeDefined();
    expect(bound.behind).toBe(false);
    // Nothing touched since: a sweep reads nothing and removes nothing.
    expect(await bound.sweep(100)).toBe(0);
  });

  it('stops at its budget and goes on with the same app on the next sweep', async () => {
    const { col, bound, add } = fixture(1);
    for (let i = 1; i <= 6; i++) await add(`a${i}`, 'a', i);
    expect(await bound.sweep(3)).toBe(3);
    expect(bound.behind).toBe(true);
    expect(await bound.sweep(3)).toBe(2);
    expect((await col.findBy('client_id', 'a')).map((r) => r.created_ms)).toEqual([6]);
  });

  it('leaves a record its drop refuses (in use) and counts only what went', async () => {
    const { col, bound, add } = fixture(1);
    await add('a1', 'a', 1, true);
    await add('a2', 'a', 2);
    await add('a3', 'a', 3);
    expect(await bound.sweep(10)).toBe(1);
    expect((await col.findBy('client_id', 'a')).map((r) => r.created_ms).sort()).toEqual([1, 3]);
    // Still touched: once the record is free, the next sweep takes it without a new write.
    expect(bound.behind).toBe(true);
    await col.put('a1', { client_id: 'a', created_ms: 1 });
    expect(await bound.sweep(10)).toBe(1);
    expect(bound.behind).toBe(false);
  });

  it('keep 0 is no bound: touching records nothing to sweep', async () => {
    const { col, bound, add } = fixture(0);
    for (let i = 1; i <= 3; i++) await add(`a${i}`, 'a', i);
    expect(bound.behind).toBe(false);
    expect(await bound.sweep(10)).toBe(0);
    expect(await col.count()).toBe(3);
  });

  it('touchAll covers apps an earlier run left over the bound', async () => {
    const { col, bound } = fixture(1);
    for (let i = 1; i <= 3; i++) await col.put(`a${i}`, { client_id: 'a', created_ms: i });
    expect(await bound.sweep(10)).toBe(0);
    bound.touchAll(['a', 'nobody']);
    expect(await bound.sweep(10)).toBe(2);
  });
});
