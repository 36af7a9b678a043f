import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HarFile } from './harFile.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('HarFile', () => {
  it('is a valid HAR after every append, before it is closed (a crash loses nothing written)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'psim-har-'));
    const file = await HarFile.create(dir, { upstream: 'http://127.0.0.1:1' }, '0.1.0');
    const empty = JSON.parse(await readFile(file.path, 'utf8'));
    expect(empty.log).toMatchObject({
      version: '1.2',
      entries: [],
      _app: null,
      _upstream: 'http://127.0.0.1:1',
    });
    await file.append({ n: 1 });
    file.update({ app: 'a-rather-long-client-id', region: 'jp' });
    await file.append({ n: 2 });
    // Read while still open, as after a crash: every acknowledged entry, in order.
    const open = JSON.parse(await readFile(file.path, 'utf8'));
    expect(open.log.entries).toEqual([{ n: 1 }, { n: 2 }]);
    expect(open.log._app).toBe('a-rather-long-client-id');
    // Metadata that shrinks leaves no stale bytes behind.
    file.update({ app: 'x' });
    await file.append({ n: 3 });
    await file.close();
    const done = JSON.parse(await readFile(file.path, 'utf8'));
    expect(done.log.entries).toHaveLength(3);
    expect(done.log._app).toBe('x');
    expect((await stat(file.path)).mode & 0o077).toBe(0);
  });

  it('keeps concurrent appends whole and in call order', async () => {
    dir = await mkdtemp(join(tmpdir(), 'psim-har-'));
    const file = await HarFile.create(dir, { upstream: 'live' }, '0.1.0');
    await Promise.all(Array.from({ length: 20 }, (_, n) => file.append({ n, pad: 'x'.repeat(n * 50) })));
    await file.close();
    const doc = JSON.parse(await readFile(file.path, 'utf8'));
    expect(doc.log.entries.map((e: { n: number }) => e.n)).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });
});
