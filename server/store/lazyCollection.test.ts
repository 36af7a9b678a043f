import { describe, expect, it } from 'vitest';
import { COLLECTIONS } from './collections.js';
import { LazyCollection, type RecordSource } from './lazyCollection.js';

interface Rec {
  id: string;
  client_id: string;
  n: number;
}

/**
 * Records "on disk" whose full read is held until `release()`: what a request does while the
 * background load runs can be lined up exactly.
 */
function source(initial: Rec[]) {
  const disk = new Map(initial.map((r) => [r.id, r]));
  const written: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const src: RecordSource<Rec> = {
    read: async (id) => disk.get(id),
    // The full read takes its snapshot of the disk first, as readdir does, then waits.
    readAll: async (restore) => {
      const snapshot = [...disk.values()];
      await gate;
      for (const r of snapshot) restore(r.id, r);
    },
  };
  const col = new LazyCollection<Rec>(
    'transcriptions',
    COLLECTIONS.transcriptions,
    {
      write: async (id, value) => {
        disk.set(id, value as Rec);
        written.push(id);
      },
      remove: async (id) => {
        disk.delete(id);
      },
    },
    src,
    false,
  );
  return { col, disk, written, release };
}

const rec = (id: string, n = 0): Rec => ({ id, client_id: 'app', n });

describe('LazyCollection', () => {
  it('answers get from the record alone before the load, and listings once it finished', async () => {
    const { col, release } = source([rec('a', 1), rec('b', 2)]);
    expect(await col.get('a')).toEqual(rec('a', 1));
    expect(await col.get('zz')).toBeUndefined();
    const listing = col.findBy('client_id', 'app');
    const loaded = col.load();
    release();
    await loaded;
    expect((await listing).map((r) => r.id).sort()).toEqual(['a', 'b']);
    expect(await col.count()).toBe(2);
  });

  it('never lets the load overwrite a newer value or bring back a deleted record', async () => {
    const { col, release } = source([rec('a', 1), rec('b', 2), rec('c', 3)]);
    const loaded = col.load();
    await col.put('a', rec('a', 10));
    expect(await col.delete('b')).toBe(true);
    await col.update('c', (cur) => ({ next: { ...cur!, n: cur!.n + 1 }, result: undefined }));
    release();
    await loaded;
    expect(await col.list()).toEqual([rec('a', 10), rec('c', 4)]);
    expect(await col.get('b')).toBeUndefined();
  });

  it('counts two updates of a record not yet read (one read, both applied in order)', async () => {
    const { col, release } = source([rec('a', 1)]);
    const inc = () => col.update('a', (cur) => ({ next: { ...cur!, n: cur!.n + 1 }, result: cur!.n }));
    expect(await Promise.all([inc(), inc()])).toEqual([1, 2]);
    expect(await col.insert('a', rec('a', 99))).toBe(false);
    release();
    await col.load();
    expect(await col.get('a')).toEqual(rec('a', 3));
  });

  it('forgets a load in progress when reset (cleared while loading)', async () => {
    const { col, release } = source([rec('a', 1)]);
    const loaded = col.load();
    col.reset();
    release();
    await loaded;
    expect(await col.count()).toBe(0);
    expect(await col.get('a')).toBeUndefined();
  });
});
