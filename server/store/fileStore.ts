import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TextFile } from 'lowdb/node';
import { MemoryCollection, MemoryStore } from './memoryStore.js';

/**
 * The embedded default store: one small JSON file per record under `<dir>/<collection>/`,
 * written through lowdb's file adapter (steno: temp file + rename, so a crash never leaves a
 * half-written record). One file per record keeps the cost of a write independent of how
 * much state there is, which a single db.json cannot do, and the files stay readable.
 *
 * All records are loaded into memory at open; reads never touch the disk. Writes to the same
 * record are chained so they land in order. One process owns a data folder.
 */
export class FileStore extends MemoryStore {
  override get kind(): 'file' | 'memory' {
    return 'file';
  }
  private readonly files = new Map<string, TextFile>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly madeDirs = new Set<string>();

  private constructor(readonly dir: string) {
    super();
  }

  override get location(): string {
    return this.dir;
  }

  static async open(dir: string): Promise<FileStore> {
    const store = new FileStore(dir);
    await mkdir(dir, { recursive: true });
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const col = store.collection<unknown>(entry.name) as MemoryCollection<unknown>;
      const names = (await readdir(join(dir, entry.name))).filter((n) => n.endsWith('.json'));
      const bodies = await Promise.all(names.map((n) => readFile(join(dir, entry.name, n), 'utf8')));
      names.forEach((n, i) => {
        col.map.set(decodeURIComponent(n.slice(0, -5)), JSON.parse(bodies[i]!));
      });
      store.madeDirs.add(entry.name);
    }
    return store;
  }

  protected override makeCollection(name: string): MemoryCollection<unknown> {
    return new MemoryCollection(
      name,
      (id, value) => this.enqueue(name, id, () => this.write(name, id, value)),
      (id) => this.enqueue(name, id, () => this.remove(name, id)),
    );
  }

  private path(col: string, id: string): string {
    return join(this.dir, col, `${encodeURIComponent(id)}.json`);
  }

  private async write(col: string, id: string, value: unknown): Promise<void> {
    if (!this.madeDirs.has(col)) {
      await mkdir(join(this.dir, col), { recursive: true });
      this.madeDirs.add(col);
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
  }
}
