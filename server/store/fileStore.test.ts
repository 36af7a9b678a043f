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

describe('FileStore', () => {
  it('writes one readable file per record and reloads them', async () => {
    const dir = await tmp();
    const a = await FileStore.open(dir);
    await a.collection<{ n: number }>('things').put('a/b c', { n: 1 });
    await a.collection<{ n: number }>('things').put('two', { n: 2 });
    await a.collection<{ n: number }>('things').put('two', { n: 3 });
    await a.close();
    expect((await readdir(join(dir, 'things', shardName('a/b c')))).sort()).toContain('a%2Fb%20c.json');
    expect(JSON.parse(await readFile(join(dir, 'things', shardName('two'), 'two.json'), 'utf8'))).toEqual({
      n: 3,
    });
    const b = await FileStore.open(dir);
    expect(b.collection<{ n: number }>('things').get('a/b c')).toEqual({ n: 1 });
    expect(b.collection<{ n: number }>('things').get('two')).toEqual({ n: 3 });
  });

  it('keeps the last of many concurrent writes to one record, and deletes', async () => {
    const dir = await tmp();
    const s = await FileStore.open(dir);
    const c = s.collection<{ n: number }>('c');
    await Promise.all(Array.from({ length: 50 }, (_, n) => c.put('x', { n })));
    await c.put('y', { n: 1 });
    expect(await c.deleteWhere((v) => v.n === 1)).toBe(1);
    await s.close();
    const again = (await FileStore.open(dir)).collection<{ n: number }>('c');
    expect(again.get('x')).toEqual({ n: 49 });
    expect(again.has('y')).toBe(false);
  });

  it('clear() empties memory and disk', async () => {
    const dir = await tmp();
    const s = await FileStore.open(dir);
    await s.collection('a').put('1', { v: 1 });
    await s.clear();
    expect(s.collection('a').size).toBe(0);
    // Only the lock of the open store is left.
    expect(await readdir(dir)).toEqual(['LOCK']);
  });

  it('spreads records over at most 256 shard folders per collection', async () => {
    const dir = await tmp();
    const s = await FileStore.open(dir);
    const c = s.collection<number>('many');
    await Promise.all(Array.from({ length: 2000 }, (_, i) => c.put(`id-${i}`, i)));
    await s.close();
    const shards = await readdir(join(dir, 'many'));
    expect(shards.length).toBeGreaterThan(200);
    expect(shards.every((n) => /^[0-9a-f]{2}$/.test(n))).toBe(true);
    expect((await FileStore.open(dir)).collection<number>('many').size).toBe(2000);
  });

  it('rejects collection names that would escape the folder', () => {
    expect(() => new MemoryStore().collection('../etc')).toThrow(/invalid collection name/);
  });
});
