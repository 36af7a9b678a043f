import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TextFile } from 'lowdb/node';
import { COLLECTIONS, type CollectionSpec } from './collections.js';
import { lockDataDir } from './dataDirLock.js';
import { MemoryCollection } from './memoryCollection.js';
import { MemoryStore } from './memoryStore.js';

/**
 * The embedded default store: one small JSON file per record under
 * `<dir>/<collection>/<shard>/<id>.json`, written through lowdb's file adapter (steno: temp
 * file + rename, so a crash never leaves a half-written record). One file per record keeps
 * the cost of a write independent of how much state there is, which a single db.json cannot
 * do, and the files stay readable. The 256 shard folders (two hex digits of a hash of the id)
 * keep directories small: with 20,000 files in one folder each write's create + rename cost
 * measurably more (1.4-1.5x) than in a small one.
 *
 * All records are loaded into memory at open; reads never touch the disk. Writes to the same
 * record are chained so they land in order. Collections declared not durable (rate-limit
 * windows) stay in memory only. One process owns a data folder: `open` takes its
 * lock (dataDirLock.ts) and `close` releases it.
 */
export class FileStore extends MemoryStore {
  override get kind(): 'file' | 'memory' {
    return 'file';
  }
  private readonly files = new Map<string, TextFile>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly madeDirs = new Set<string>();

  private constructor(
    readonly dir: string,
    private readonly unlock: () => Promise<void>,
  ) {
    super();
  }

  override get location(): string {
    return this.dir;
  }

  static async open(dir: string): Promise<FileStore> {
    await mkdir(dir, { recursive: true });
    const unlock = await lockDataDir(dir);
    try {
      return await FileStore.load(dir, unlock);
    } catch (e) {
      await unlock();
      throw e;
    }
  }

  private static async load(dir: string, unlock: () => Promise<void>): Promise<FileStore> {
    const store = new FileStore(dir, unlock);
    const present = new Set(
      (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name),
    );
    for (const [name, spec] of Object.entries(COLLECTIONS)) {
      if (!spec.durable || !present.has(name)) continue;
      const col = store.open(name);
      const colDir = join(dir, name);
      for (const shard of await readdir(colDir, { withFileTypes: true })) {
        if (!shard.isDirectory()) continue;
        const shardDir = join(colDir, shard.name);
        const names = (await readdir(shardDir)).filter((n) => n.endsWith('.json'));
        const bodies = await Promise.all(names.map((n) => readFile(join(shardDir, n), 'utf8')));
        names.forEach((n, i) => {
          col.restore(decodeURIComponent(n.slice(0, -5)), JSON.parse(bodies[i]!));
        });
        store.madeDirs.add(join(name, shard.name));
      }
    }
    return store;
  }

  protected override makeCollection(name: string, spec: CollectionSpec): MemoryCollection<unknown> {
    if (!spec.durable) return new MemoryCollection(name, spec);
    return new MemoryCollection(name, spec, {
      write: (id, value) => this.enqueue(name, id, () => this.write(name, id, value)),
      remove: (id) => this.enqueue(name, id, () => this.remove(name, id)),
    });
  }

  private shardOf(col: string, id: string): string {
    return join(col, shardName(id));
  }

  private path(col: string, id: string): string {
    return join(this.dir, this.shardOf(col, id), `${encodeURIComponent(id)}.json`);
  }

  private async write(col: string, id: string, value: unknown): Promise<void> {
    const shard = this.shardOf(col, id);
    if (!this.madeDirs.has(shard)) {
      await mkdir(join(this.dir, shard), { recursive: true });
      this.madeDirs.add(shard);
    }
    const p = this.path(col, id);
    let f = this.files.get(p);
    if (!f) {
      f = new TextFile(p);
      this.files.set(p, f);
    }
    await f.write(JSON.stringify(value, null, 2));
  }

  private async remove(col: string, id: string): Promise<void> {
    const p = this.path(col, id);
    this.files.delete(p);
    await rm(p, { force: true });
  }

  private enqueue(col: string, id: string, op: () => Promise<void>): Promise<void> {
    const key = `${col}/${id}`;
    const prev = this.chains.get(key) ?? Promise.resolve();
    const next = prev.then(op, op);
    this.chains.set(key, next);
    const done = next.finally(() => {
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
    return done;
  }

  override async clear(): Promise<void> {
    await this.flush();
    await super.clear();
    this.files.clear();
    const entries = await readdir(this.dir, { withFileTypes: true });
    await Promise.all(
      entries
        .filter((e) => e.isDirectory())
        .map((e) => rm(join(this.dir, e.name), { recursive: true, force: true })),
    );
    this.madeDirs.clear();
  }

  override async flush(): Promise<void> {
    while (this.chains.size > 0) await Promise.allSettled([...this.chains.values()]);
  }

  override async close(): Promise<void> {
    await this.flush();
    await this.unlock();
  }
}

/** Two hex digits of an FNV-1a hash of the id: which of 256 folders holds its file. */
export function shardName(id: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return ((h >>> 0) & 0xff).toString(16).padStart(2, '0');
}
