import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BlobStore } from '../store/blobStore.js';
import { type Store, unverifiedRing } from '../store/store.js';
import { blobCases } from './blobStoreContract.js';
import { sharedCases } from './storeContractShared.js';
import { journalEntry as entry } from './storeFixtures.js';

/**
 * The same cases for every Store backend: what domain modules rely on, whatever keeps the
 * records. `open` makes a store on fresh state; `openPeer` (shared backends) a second
 * instance on the SAME state, for the cases that prove instances behave as one; `blobs`, the
 * blob store that goes with the backend.
 */
export interface ConformanceTarget {
  open: () => Promise<Store>;
  openPeer?: () => Promise<Store>;
  blobs?: (store: Store) => BlobStore;
}

interface Device {
  id: string;
  owner?: { client_id: string };
  n?: number;
}

export function storeConformance(name: string, target: ConformanceTarget): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await target.open();
    });
    afterAll(async () => {
      await store?.close();
    });
    beforeEach(async () => {
      await store.clear();
    });
    const devices = () => store.collection<Device>('devices');

    it('puts, gets, lists, counts and deletes', async () => {
      await devices().put('d1', { id: 'd1', n: 1 });
      await devices().put('d2', { id: 'd2', n: 2 });
      await devices().put('d1', { id: 'd1', n: 3 });
      expect(await devices().get('d1')).toEqual({ id: 'd1', n: 3 });
      expect(await devices().get('nope')).toBeUndefined();
      expect(await devices().count()).toBe(2);
      expect((await devices().list()).map((d) => d.id).sort()).toEqual(['d1', 'd2']);
      expect(await devices().delete('d1')).toBe(true);
      expect(await devices().delete('d1')).toBe(false);
      expect(await devices().get('d1')).toBeUndefined();
      expect(await devices().count()).toBe(1);
    });

    it('inserts only when the id is absent', async () => {
      expect(await devices().insert('d1', { id: 'd1', n: 1 })).toBe(true);
      expect(await devices().insert('d1', { id: 'd1', n: 2 })).toBe(false);
      expect(await devices().get('d1')).toEqual({ id: 'd1', n: 1 });
    });

    it('finds and deletes by a (dotted) index', async () => {
      await devices().put('d1', { id: 'd1', owner: { client_id: 'a' } });
      await devices().put('d2', { id: 'd2', owner: { client_id: 'b' } });
      await devices().put('d3', { id: 'd3', owner: { client_id: 'a' } });
      await devices().put('d4', { id: 'd4' });
      expect((await devices().findBy('owner.client_id', 'a')).map((d) => d.id).sort()).toEqual(['d1', 'd3']);
      expect(await devices().findBy('owner.client_id', 'zz')).toEqual([]);
      expect(await devices().deleteBy('owner.client_id', 'a')).toBe(2);
      expect((await devices().list()).map((d) => d.id).sort()).toEqual(['d2', 'd4']);
      const tokens = store.collection<{ client_id: string }>('refreshTokens');
      await tokens.put('t1', { client_id: 'a' });
      expect(await tokens.findBy('client_id', 'a')).toEqual([{ client_id: 'a' }]);
    });

    it('names the records beyond the newest N of an index value, oldest first', async () => {
      const tokens = store.collection<{ client_id: string; exp_ms: number }>('refreshTokens');
      // Written out of order, with a tie (broken by id) and another app's records between.
      const rows: Array<[string, string, number]> = [
        ['t5', 'a', 50],
        ['t1', 'a', 10],
        ['u1', 'b', 1],
        ['t3', 'a', 30],
        ['t2', 'a', 30],
        ['t4', 'a', 40],
      ];
      for (const [id, client_id, exp_ms] of rows) await tokens.put(id, { client_id, exp_ms });
      expect(await tokens.beyondNewest('client_id', 'a', 2, 'exp_ms')).toEqual(['t1', 't2', 't3']);
      expect(await tokens.beyondNewest('client_id', 'a', 5, 'exp_ms')).toEqual([]);
      expect(await tokens.beyondNewest('client_id', 'a', 0, 'exp_ms')).toEqual([
        't1',
        't2',
        't3',
        't4',
        't5',
      ]);
      expect(await tokens.beyondNewest('client_id', 'b', 0, 'exp_ms')).toEqual(['u1']);
      expect(await tokens.beyondNewest('client_id', 'zz', 0, 'exp_ms')).toEqual([]);
    });

    it('pages through records in id order', async () => {
      const ids = ['m', 'b', 'z', 'a', 'k', 'c', 'x', 'B', 'a1'];
      for (const id of ids) await devices().put(id, { id });
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await devices().page(after, 3);
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(3);
        for (const [id, v] of page) {
          expect(v.id).toBe(id);
          seen.push(id);
        }
        after = page.at(-1)![0];
      }
      expect(seen).toEqual([...ids].sort());
    });

    it('applies every one of 20 concurrent updates of one record', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          devices().update('d1', (cur) => {
            const n = (cur?.n ?? 0) + 1;
            return { next: { id: 'd1', n }, result: n };
          }),
        ),
      );
      expect(results.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(await devices().get('d1')).toEqual({ id: 'd1', n: 20 });
    });

    it('writes nothing when the update function throws', async () => {
      await expect(
        devices().update('d1', () => {
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(await devices().get('d1')).toBeUndefined();
      await devices().put('d2', { id: 'd2', n: 1 });
      await expect(
        devices().update('d2', () => {
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(await devices().get('d2')).toEqual({ id: 'd2', n: 1 });
    });

    it('lets exactly one of racing creators win, deletes with null, keeps with undefined', async () => {
      const wins = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          devices().update('d1', (cur) =>
            cur ? { result: false } : { next: { id: 'd1', owner: { client_id: `c${i}` } }, result: true },
          ),
        ),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      const winner = `c${wins.indexOf(true)}`;
      expect((await devices().get('d1'))?.owner?.client_id).toBe(winner);
      expect(await devices().update('d1', () => ({ result: 'kept' }))).toBe('kept');
      expect(await devices().get('d1')).toBeDefined();
      expect(await devices().update('d1', () => ({ next: null, result: 'gone' }))).toBe('gone');
      expect(await devices().get('d1')).toBeUndefined();
    });

    it('mirrors: a write is seen by peek at once; onChange fires; clear empties everything', async () => {
      const apps = store.mirrored<{ client_id: string; name: string }>('apps');
      const changes: Array<[string, string | undefined]> = [];
      apps.onChange((id, v) => changes.push([id, v?.name]));
      await apps.put('a1', { client_id: 'a1', name: 'one' });
      expect(apps.peek('a1')).toEqual({ client_id: 'a1', name: 'one' });
      expect(apps.size).toBe(1);
      await apps.update('a1', (cur) => ({ next: { ...cur!, name: 'uno' }, result: undefined }));
      expect(apps.peek('a1')?.name).toBe('uno');
      await apps.delete('a1');
      expect(apps.peek('a1')).toBeUndefined();
      expect(changes).toEqual([
        ['a1', 'one'],
        ['a1', 'uno'],
        ['a1', undefined],
      ]);
      await apps.put('a2', { client_id: 'a2', name: 'two' });
      await devices().put('d1', { id: 'd1' });
      await store.clear();
      expect(apps.size).toBe(0);
      expect([...apps.peekAll()]).toEqual([]);
      expect(await devices().count()).toBe(0);
    });

    it('keeps a journal: ids, newest first, filters, capacity per ring, clear', async () => {
      const j = store.journal(3);
      await j.clear();
      const e1 = await j.add(entry('uploadCreate', 200, 'a'), 1000, 'a');
      await j.add(entry('uploadCreate', 401, 'b'), 2000, undefined);
      await j.add(entry('taskGet', 200, 'a'), 3000, 'a');
      await j.add(entry('taskGet', 404, null), 4000);
      expect(e1).toMatch(/^req_\d+$/);
      const all = await j.list();
      expect(all.map((e) => e.operation)).toEqual(['taskGet', 'taskGet', 'uploadCreate', 'uploadCreate']);
      expect(new Set(all.map((e) => e.id)).size).toBe(4);
      expect((await j.list({ status: 200 })).map((e) => e.client_id)).toEqual(['a', 'a']);
      expect(await j.list({ operation: 'taskGet', clientId: 'a' })).toHaveLength(1);
      expect((await j.list({ sinceMs: 2000 })).map((e) => e.status)).toEqual([404, 200, 401]);
      expect(await j.list({ limit: 1 })).toHaveLength(1);
      // The next page of a listing: entries older than the last one shown, filters kept.
      const seqOf = (id: string) => Number(id.slice(4));
      const older = await j.list({ beforeSeq: seqOf(all[1]!.id) });
      expect(older.map((e) => e.id)).toEqual(all.slice(2).map((e) => e.id));
      expect((await j.list({ beforeSeq: seqOf(all[0]!.id), status: 200 })).map((e) => e.id)).toEqual([
        all[1]!.id,
        all[3]!.id,
      ]);
      // An app's listing includes no-app entries that claimed its id.
      expect((await j.list({ clientId: 'b' })).map((e) => e.status)).toEqual([401]);
      for (let i = 0; i < 10; i++) await j.add(entry('taskGet', 200 + i, 'a'), 5000 + i, 'a');
      expect((await j.list({ clientId: 'a' })).map((e) => e.status)).toEqual([209, 208, 207]);
      expect(await j.clear('b')).toBe(1);
      expect(await j.list({ clientId: 'b' })).toEqual([]);
      expect(await j.clear()).toBe(4);
      expect(await j.list()).toEqual([]);
    });

    it('counts entries by method, path, app, status and since, saying when a full ring may have dropped some', async () => {
      const j = store.journal(3);
      await j.clear();
      const at = (method: string, path: string, status: number, client: string | null) => ({
        ...entry('taskGet', status, client),
        method,
        path,
      });
      await j.add(at('POST', '/p/tasks/', 200, 'a'), 1000, 'a');
      await j.add(at('POST', '/p/tasks/?x=1', 422, 'a'), 2000, 'a');
      await j.add(at('GET', '/p/tasks/t1', 200, 'a'), 3000, 'a');
      await j.add(at('POST', '/p/tasks/', 200, null), 4000);
      expect(await j.count({ method: 'POST', path: '/p/tasks/' })).toEqual({ count: 3, complete: false });
      expect((await j.count({ method: 'POST', path: '/p/tasks/', clientId: 'a' })).count).toBe(2);
      expect((await j.count({ path: '/p/tasks/*', status: 200 })).count).toBe(3);
      expect((await j.count({ path: '/p/tasks/*', sinceMs: 3000 })).count).toBe(2);
      // The app's ring is full (3 of 3) but holds an entry older than `since`: nothing was lost.
      expect(await j.count({ clientId: 'a', sinceMs: 2000 })).toEqual({ count: 2, complete: true });
      await j.add(at('GET', '/p/tasks/t2', 200, 'a'), 5000, 'a');
      expect(await j.count({ clientId: 'a', method: 'GET' })).toEqual({ count: 2, complete: false });
      expect(await j.count({ clientId: 'nobody' })).toEqual({ count: 0, complete: true });
    });

    it('keeps unverified claims on an app in a ring of their own, filtered on request', async () => {
      const j = store.journal(3);
      await j.clear();
      await j.add(entry('taskGet', 200, 'a'), 1000, 'a');
      await j.add(entry('taskGet', 404, null), 1500);
      const claim = { ...entry('taskGet', 401, 'a'), unverified: true };
      for (let i = 0; i < 5; i++) await j.add(claim, 2000 + i, unverifiedRing('a'));
      // A per-app listing never shows more than the per-app size (issue 25: 1,001 of 1,000):
      // the newest of its own and its claims; its own entry is still kept, listed below.
      const perApp = await j.list({ clientId: 'a', limit: 100 });
      expect(perApp.map((e) => e.status)).toEqual([401, 401, 401]);
      // Nor over its pages: the page after the third entry is empty, not the older own one.
      const third = Number(perApp[2]!.id.slice(4));
      expect(await j.list({ clientId: 'a', beforeSeq: third })).toEqual([]);
      expect(
        await j.list({ clientId: 'a', limit: 2, beforeSeq: Number(perApp[0]!.id.slice(4)) }),
      ).toHaveLength(2);
      expect((await j.list({ clientId: 'a', unverified: false })).map((e) => e.status)).toEqual([200]);
      expect(await j.list({ clientId: 'a', unverified: true })).toHaveLength(3);
      // Neither the app's own entry nor the no-app ring's was pushed out.
      expect((await j.list({ unverified: false })).map((e) => e.status)).toEqual([404, 200]);
      expect(await j.clear('a')).toBe(4);
      expect((await j.list()).map((e) => e.status)).toEqual([404]);
    });

    if (target.openPeer) sharedCases(target.openPeer, () => store);
    if (target.blobs) blobCases(() => target.blobs!(store));
  });
}
