import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memoryStore.js';

interface Dev {
  owner: { client_id: string } | null;
  n: number;
}
const dev = (client_id: string | null, n = 0): Dev => ({ owner: client_id ? { client_id } : null, n });
const owners = async (s: MemoryStore, client: string) =>
  (await s.collection<Dev>('devices').findBy('owner.client_id', client)).map((d) => d.n).sort();

describe('MemoryStore collections', () => {
  it('takes names and kinds from collections.ts only', () => {
    const s = new MemoryStore();
    expect(() => s.collection('nope')).toThrow(/not declared/);
    expect(() => s.collection('apps')).toThrow(/is mirrored/);
    expect(() => s.mirrored('devices')).toThrow(/is not mirrored/);
    expect(s.mirrored('apps')).toBe(s.mirrored('apps'));
  });

  it('applies concurrent updates of one id one after the other, in call order', async () => {
    const c = new MemoryStore().collection<{ log: number[] }>('transcripts');
    const results = await Promise.all(
      [1, 2, 3].map((n) =>
        c.update('x', (cur) => {
          const next = { log: [...(cur?.log ?? []), n] };
          return { next, result: next.log.length };
        }),
      ),
    );
    expect(results).toEqual([1, 2, 3]);
    expect(await c.get('x')).toEqual({ log: [1, 2, 3] });
  });

  it('writes nothing when the update function throws, and the error is the caller’s', async () => {
    const s = new MemoryStore();
    const c = s.collection<Dev>('devices');
    await c.put('d', dev('a', 1));
    await expect(
      c.update('d', () => {
        throw new Error('taken');
      }),
    ).rejects.toThrow('taken');
    expect(await c.get('d')).toEqual(dev('a', 1));
    expect(await c.update('d', () => ({ result: 'left' }))).toBe('left');
    expect(await c.get('d')).toEqual(dev('a', 1));
  });

  it('keeps the findBy/deleteBy index right through put, update and delete', async () => {
    const s = new MemoryStore();
    const c = s.collection<Dev>('devices');
    await c.put('1', dev('a', 1));
    await c.put('2', dev('a', 2));
    await c.put('3', dev(null, 3));
    expect(await owners(s, 'a')).toEqual([1, 2]);
    await c.put('2', dev('b', 2)); // re-owned by put
    await c.update('3', (cur) => ({ next: { ...cur!, owner: { client_id: 'b' } }, result: 0 }));
    expect(await owners(s, 'a')).toEqual([1]);
    expect(await owners(s, 'b')).toEqual([2, 3]);
    await c.delete('2');
    await c.update('1', () => ({ next: null, result: 0 }));
    expect(await owners(s, 'a')).toEqual([]);
    expect(await owners(s, 'b')).toEqual([3]);
    expect(await c.deleteBy('owner.client_id', 'b')).toBe(1);
    expect(await c.count()).toBe(0);
    await expect(c.findBy('n', '1')).rejects.toThrow(/no index on n/);
    await expect(c.deleteBy('owner.sub', 'x')).rejects.toThrow(/no index/);
  });

  it('pages in id order, resuming after a given id, as records come and go', async () => {
    const c = new MemoryStore().collection<number>('transcripts');
    for (const id of ['m', 'c', 'x', 'a', 'q']) await c.put(id, id.charCodeAt(0));
    const ids = async (after: string | undefined, limit: number) =>
      (await c.page(after, limit)).map(([id]) => id);
    expect(await ids(undefined, 2)).toEqual(['a', 'c']);
    expect(await ids('c', 2)).toEqual(['m', 'q']);
    expect(await ids('q', 2)).toEqual(['x']);
    await c.delete('m');
    await c.put('b', 1);
    await c.put('n', 1);
    expect(await ids('a', 10)).toEqual(['b', 'c', 'n', 'q', 'x']);
    expect(await ids('bb', 1)).toEqual(['c']);
    expect((await c.page('n', 1))[0]).toEqual(['q', 'q'.charCodeAt(0)]);
  });

  it('tells mirror listeners of every change, and insert keeps the first record', async () => {
    const s = new MemoryStore();
    const apps = s.mirrored<{ v: number }>('apps');
    const seen: [string, unknown][] = [];
    apps.onChange((id, v) => seen.push([id, v]));
    await apps.put('a', { v: 1 });
    expect(await apps.insert('a', { v: 2 })).toBe(false);
    await apps.update('a', (cur) => ({ next: { v: cur!.v + 1 }, result: 0 }));
    await apps.delete('a');
    await apps.put('b', { v: 5 });
    await s.clear();
    expect(seen).toEqual([
      ['a', { v: 1 }],
      ['a', { v: 2 }],
      ['a', undefined],
      ['b', { v: 5 }],
      ['b', undefined],
    ]);
    expect(apps.size).toBe(0);
  });

  it('needs nothing awaited to sync and keeps the journal in memory', async () => {
    const s = new MemoryStore();
    expect(s.sync()).toBeUndefined();
    expect(s.shared).toBe(false);
    const j = s.journal(2);
    const e = await j.add(
      {
        time: '2026-01-01T00:00:00.000Z',
        operation: 'x',
        method: 'GET',
        path: '/',
        status: 200,
        latency_ms: 1,
        client_id: 'a',
        headers: {},
        fault_id: null,
      },
      0,
      'a',
    );
    expect(e).toBe('req_000001');
    expect((await j.list({ clientId: 'a' })).map((x) => x.id)).toEqual(['req_000001']);
  });
});
