import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../store/store.js';
import { journalEntry as entry } from './storeFixtures.js';

/** Two instances on one state: what one writes, the other sees after `sync`. */
export function sharedCases(openPeer: () => Promise<Store>, first: () => Store): void {
  describe('two instances on the same state', () => {
    let b: Store;
    beforeAll(async () => {
      b = await openPeer();
    });
    afterAll(async () => {
      await b?.close();
    });

    it('sees the other instance’s mirrored writes and deletes after sync, with onChange', async () => {
      const a = first();
      await b.sync();
      const seen: Array<[string, unknown]> = [];
      b.mirrored<{ name: string }>('apps').onChange((id, v) => seen.push([id, v?.name]));
      await a.mirrored('apps').put('x1', { name: 'one' });
      await a.mirrored('clocks').put('x1', { offset: 5 });
      await b.sync();
      expect(b.mirrored('apps').peek('x1')).toEqual({ name: 'one' });
      expect(b.mirrored('clocks').peek('x1')).toEqual({ offset: 5 });
      await a.mirrored('apps').delete('x1');
      await b.sync();
      expect(b.mirrored('apps').peek('x1')).toBeUndefined();
      expect(seen).toEqual([
        ['x1', 'one'],
        ['x1', undefined],
      ]);
      await a.mirrored('faults').put('f1', { match: { client_id: 'c' }, left: 1 });
      await b.mirrored('faults').deleteBy('match.client_id', 'c');
      await a.sync();
      expect(a.mirrored('faults').size).toBe(0);
    });

    it('counts concurrent updates from both instances exactly', async () => {
      const a = first();
      const bump = (s: Store) =>
        s
          .mirrored<{ left: number }>('faults')
          .update('f', (cur) => ({ next: { left: (cur?.left ?? 0) + 1 }, result: 0 }));
      await Promise.all(Array.from({ length: 20 }, (_, i) => bump(i % 2 ? a : b)));
      await Promise.all([a.sync(), b.sync()]);
      expect(a.mirrored('faults').peek('f')).toEqual({ left: 20 });
      expect(b.mirrored('faults').peek('f')).toEqual({ left: 20 });
      const wins = await Promise.all(
        [a, b, a, b].map((s, i) =>
          s
            .collection<{ by: number }>('devices')
            .update('race', (cur) => (cur ? { result: false } : { next: { by: i }, result: true })),
        ),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
    });

    it('spends a counted rule exactly `times` times across instances', async () => {
      const a = first();
      await a.mirrored('faults').put('f5', { left: 5 });
      const fired = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          (i % 2 ? a : b)
            .mirrored<{ left: number }>('faults')
            .update('f5', (cur) =>
              cur && cur.left > 0 ? { next: { left: cur.left - 1 }, result: true } : { result: false },
            ),
        ),
      );
      expect(fired.filter(Boolean)).toHaveLength(5);
      await b.sync();
      expect(b.mirrored('faults').peek('f5')).toEqual({ left: 0 });
    });

    it('a clear on one instance empties the other’s mirrors', async () => {
      const a = first();
      await a.mirrored('apps').put('y', { name: 'y' });
      await b.sync();
      expect(b.mirrored('apps').size).toBe(1);
      await a.clear();
      await b.sync();
      expect(b.mirrored('apps').size).toBe(0);
      await b.mirrored('apps').put('z', { name: 'z' });
      await a.sync();
      expect([...a.mirrored('apps').peekAll()]).toEqual([{ name: 'z' }]);
    });

    it('shares one journal: entries of both instances, unique ids, clear from either', async () => {
      const ja = first().journal(5);
      const jb = b.journal(5);
      await ja.clear();
      const ids = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? ja : jb).add(entry('taskGet', 200, 'a'), i, 'a')),
      );
      expect(new Set(ids).size).toBe(8);
      const listed = await jb.list({ clientId: 'a' });
      expect(listed).toHaveLength(5);
      expect(await ja.list()).toEqual(listed);
      expect(await jb.clear('a')).toBe(5);
      expect(await ja.list()).toEqual([]);
    });
  });
}
