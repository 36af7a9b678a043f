import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDataDir } from '../testing/testServer.js';
import { FileStore, shardName } from './fileStore.js';
import { MemoryStore } from './memoryStore.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function tmp(): Promise<string> {
  const t = await tempDataDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

/** A record with the `client_id` the `files` collection is indexed on. */
const rec = (client_id: string, n: number) => ({ client_id, n });
type Rec = ReturnType<typeof rec>;

/** Open, run `write`, close; then open again and return what `read` sees. */
async function acrossReopen<T>(
  write: (s: FileStore) => Promise<void>,
  read: (s: FileStore) => Promise<T>,
): Promise<T> {
  const dir = await tmp();
  const a = await FileStore.open(dir);
  await write(a);
  await a.close();
  const b = await FileStore.open(dir);
  try {
    return await read(b);
  } finally {
    await b.close();
  }
}

describe('FileStore', () => {
  it('writes one readable file per record and reloads them', async () => {
    const dir = await tmp();
    const a = await FileStore.open(dir);
    await a.collection<{ n: number }>('transcripts').put('a/b c', { n: 1 });
    await a.collection<{ n: number }>('transcripts').put('two', { n: 2 });
    await a.collection<{ n: number }>('transcripts').put('two', { n: 3 });
    await a.close();
    expect((await readdir(join(dir, 'transcripts', shardName('a/b c')))).sort()).toContain('a%2Fb%20c.json');
    expect(
      JSON.parse(await readFile(join(dir, 'transcripts', shardName('two'), 'two.json'), 'utf8')),
    ).toEqual({
      n: 3,
    });
    const b = await FileStore.open(dir);
    expect(await b.collection<{ n: number }>('transcripts').get('a/b c')).toEqual({ n: 1 });
    expect(await b.collection<{ n: number }>('transcripts').get('two')).toEqual({ n: 3 });
    await b.close();
  });

  it('opens without reading the big collections: records serve at once, listings after the load', async () => {
    const dir = await tmp();
    const a = await FileStore.open(dir);
    for (let i = 0; i < 200; i++)
      await a.collection<Rec>('files').put(`f${i}`, rec(i % 2 ? 'odd' : 'even', i));
    await a.mirrored<Rec>('apps').put('app', rec('app', 0));
    await a.close();
    const b = await FileStore.open(dir);
    expect(b.mirrored<Rec>('apps').peek('app')).toEqual(rec('app', 0));
    const files = b.collection<Rec>('files');
    // Written and deleted while the background load runs: the load must not undo either.
    await files.put('f1', rec('odd', 1001));
    expect(await files.delete('f2')).toBe(true);
    expect(await files.get('f3')).toEqual(rec('odd', 3));
    expect((await files.findBy('client_id', 'odd')).length).toBe(100);
    await b.loaded();
    expect(await files.count()).toBe(199);
    expect(await files.get('f1')).toEqual(rec('odd', 1001));
    expect(await files.get('f2')).toBeUndefined();
    await b.close();
  });

  it('keeps the last of many concurrent writes to one record', async () => {
    const got = await acrossReopen(
      async (s) => {
        const c = s.collection<Rec>('files');
        await Promise.all(Array.from({ length: 50 }, (_, n) => c.put('x', rec('a', n))));
      },
      (s) => s.collection<Rec>('files').get('x'),
    );
    expect(got).toEqual(rec('a', 49));
  });

  it('keeps every operation across a reopen, with the indexes rebuilt', async () => {
    const got = await acrossReopen(
      async (s) => {
        const c = s.collection<Rec>('files');
        await c.put('put', rec('a', 1));
        expect(await c.insert('ins', rec('a', 2))).toBe(true);
        expect(await c.insert('ins', rec('a', 99))).toBe(false);
        await c.put('del', rec('a', 3));
        expect(await c.delete('del')).toBe(true);
        await c.put('b1', rec('b', 4));
        await c.put('b2', rec('b', 5));
        expect(await c.deleteBy('client_id', 'b')).toBe(2);
        await c.put('upd', rec('a', 6));
        await c.update('upd', (cur) => ({ next: { ...cur!, n: cur!.n + 1 }, result: undefined }));
        await c.put('gone', rec('a', 8));
        await c.update('gone', () => ({ next: null, result: undefined }));
        await c.update('moved', () => ({ next: rec('c', 9), result: undefined }));
      },
      async (s) => {
        const c = s.collection<Rec>('files');
        return {
          page: await c.page(undefined, 100),
          a: (await c.findBy('client_id', 'a')).map((r) => r.n).sort(),
          b: await c.findBy('client_id', 'b'),
          c: await c.findBy('client_id', 'c'),
        };
      },
    );
    expect(got.page).toEqual([
      ['ins', rec('a', 2)],
      ['moved', rec('c', 9)],
      ['put', rec('a', 1)],
      ['upd', rec('a', 7)],
    ]);
    expect(got.a).toEqual([1, 2, 7]);
    expect(got.b).toEqual([]);
    expect(got.c).toEqual([rec('c', 9)]);
  });

  it('keeps mirrored collections and reads them back into the mirror', async () => {
    const got = await acrossReopen(
      (s) => s.mirrored<{ v: number }>('apps').put('app-1', { v: 1 }),
      async (s) => s.mirrored<{ v: number }>('apps').peek('app-1'),
    );
    expect(got).toEqual({ v: 1 });
  });

  it('keeps rate-limit windows in memory only', async () => {
    const dir = await tmp();
    const a = await FileStore.open(dir);
    await a.collection('rateWindows').put('app/token', { client_id: 'app', stamps: [1] });
    expect(await a.collection('rateWindows').count()).toBe(1);
    await a.close();
    expect(await readdir(dir)).not.toContain('rateWindows');
    const b = await FileStore.open(dir);
    expect(await b.collection('rateWindows').count()).toBe(0);
    await b.close();
  });

  it('clear() empties memory and disk', async () => {
    const dir = await tmp();
    const s = await FileStore.open(dir);
    await s.collection('files').put('1', rec('a', 1));
    await s.clear();
    expect(await s.collection('files').count()).toBe(0);
    expect(await s.collection('files').findBy('client_id', 'a')).toEqual([]);
    // Only the lock of the open store is left.
    expect(await readdir(dir)).toEqual(['LOCK']);
    await s.close();
  });

  it('spreads records over at most 256 shard folders per collection', async () => {
    const dir = await tmp();
    const s = await FileStore.open(dir);
    const c = s.collection<number>('transcripts');
    await Promise.all(Array.from({ length: 2000 }, (_, i) => c.put(`id-${i}`, i)));
    await s.close();
    const shards = await readdir(join(dir, 'transcripts'));
    expect(shards.length).toBeGreaterThan(200);
    expect(shards.every((n) => /^[0-9a-f]{2}$/.test(n))).toBe(true);
    const again = await FileStore.open(dir);
    expect(await again.collection<number>('transcripts').count()).toBe(2000);
    await again.close();
  });

  it('rejects collection names that would escape the folder', () => {
    expect(() => new MemoryStore().collection('../etc')).toThrow(/invalid collection name/);
  });

  it('opens past a corrupt record file, and its background load says so', async () => {
    const dir = await tmp();
    const a = await FileStore.open(dir);
    await a.collection<Rec>('files').put('good', rec('app', 1));
    await a.collection<Rec>('files').put('bad', rec('app', 2));
    await a.close();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'files', shardName('bad'), 'bad.json'), '{"client_id": ');
    const warnings: string[] = [];
    const b = await FileStore.open(dir, (m) => warnings.push(m));
    try {
      expect(await b.collection<Rec>('files').get('good')).toEqual(rec('app', 1));
      await expect(b.collection<Rec>('files').findBy('client_id', 'app')).rejects.toThrow(SyntaxError);
      await b.loaded();
      expect(warnings).toEqual([expect.stringMatching(/^state\/files: background load failed: /)]);
    } finally {
      await b.close();
    }
  });

  it('removes the temp files a crash left mid-write (mirrored and background-loaded collections), keeping records', async () => {
    const dir = await tmp();
    const a = await FileStore.open(dir);
    await a.mirrored<Rec>('apps').put('app1', rec('app1', 1));
    await a.collection<Rec>('files').put('f1', rec('app', 1));
    await a.close();
    const { writeFile } = await import('node:fs/promises');
    // steno's temp file beside the record: `.<file>.tmp`; one for a record that never landed.
    const left = [
      join(dir, 'apps', shardName('app1'), '.app1.json.tmp'),
      join(dir, 'files', shardName('f1'), '.f1.json.tmp'),
      join(dir, 'files', shardName('f2'), '.f2.json.tmp'),
    ];
    const { mkdir } = await import('node:fs/promises');
    for (const f of left) {
      await mkdir(join(f, '..'), { recursive: true });
      await writeFile(f, '{"client_id": "half');
    }
    const tmpFiles = async () =>
      (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.tmp')).sort();
    expect(await tmpFiles()).toHaveLength(3);
    const b = await FileStore.open(dir);
    try {
      await b.loaded();
      await b.flush();
      expect(await tmpFiles()).toEqual([]);
      expect(b.mirrored<Rec>('apps').peek('app1')).toEqual(rec('app1', 1));
      expect(await b.collection<Rec>('files').list()).toEqual([rec('app', 1)]);
      // Writes after the clean-up still land.
      await b.collection<Rec>('files').put('f2', rec('app', 2));
    } finally {
      await b.close();
    }
    expect(JSON.parse(await readFile(join(dir, 'files', shardName('f2'), 'f2.json'), 'utf8'))).toEqual(
      rec('app', 2),
    );
  });
});
