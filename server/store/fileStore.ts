import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TextFile } from 'lowdb/node';
import { COLLECTIONS, type CollectionSpec } from './collections.js';
import { lockDataDir } from './dataDirLock.js';
import { LazyCollection } from './lazyCollection.js';
import { MemoryCollection, type Persistence } from './memoryCollection.js';
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
 * At open only the mirrored collections are read; the others are read in the background
 * (LazyCollection: until then a record is read from its own file when first needed), so
 * start-up does not grow with what is stored. Once loaded, reads never touch the disk. Writes to the same
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
  /** Collection folders found at open: the others start empty, with nothing to load. */
  private readonly present = new Set<string>();
  private background: Promise<void> = Promise.resolve();
  private closing = false;
  private beginLoad: () => void = () => {};

  private constructor(
    readonly dir: string,
    private readonly unlock: () => Promise<void>,
  ) {
    super();
  }

  override get location(): string {
    return this.dir;
  }

  static async open(dir: string, warn: (message: string) => void = () => {}): Promise<FileStore> {
    await mkdir(dir, { recursive: true });
    const unlock = await lockDataDir(dir);
    try {
      return await FileStore.load(dir, unlock, warn);
    } catch (e) {
      await unlock();
      throw e;
    }
  }

  private static async load(
    dir: string,
    unlock: () => Promise<void>,
    warn: (message: string) => void,
  ): Promise<FileStore> {
    const store = new FileStore(dir, unlock);
    for (const e of await readdir(dir, { withFileTypes: true }))
      if (e.isDirectory()) store.present.add(e.name);
    // Small mirrored collections are read now (requests peek them); the others are usable at
    // once (LazyCollection) and read in the background, one collection after the other.
    const lazy: LazyCollection<unknown>[] = [];
    for (const [name, spec] of Object.entries(COLLECTIONS)) {
      if (!spec.durable || !store.present.has(name)) continue;
      const col = store.open(name);
      if (col instanceof LazyCollection) lazy.push(col);
      else await store.readAll(name, (id, value) => col.restore(id, value));
    }
    // Begun a moment after open, so the load does not compete with the rest of start-up and
    // the first requests; whatever needs a whole collection sooner starts its load itself.
    const begin = new Promise<void>((resolve) => {
      store.beginLoad = resolve;
      setTimeout(resolve, BACKGROUND_AFTER_MS).unref();
    });
    store.background = begin.then(async () => {
      for (const col of lazy) {
        if (store.closing) break;
        // Start-up went on without this collection; whatever needs all of it gets the error
        // (and tries the load again), and the log says so now rather than at that moment.
        await col.load().catch((e: Error) => warn(`state/${col.name}: background load failed: ${e.message}`));
      }
    });
    return store;
  }

  /**
   * Every record file of `col`, BATCH at a time with a turn of the event loop between batches,
   * so a background load of 200,000 files leaves room for requests.
   */
  private async readAll(col: string, restore: (id: string, value: unknown) => void): Promise<void> {
    const colDir = join(this.dir, col);
    for (const shard of await readdirOrNone(colDir)) {
      const shardDir = join(colDir, shard);
      // Not remembered in madeDirs: a clear() while this runs may remove the folder again.
      const entries = await readdirOrNone(shardDir);
      const names = entries.filter((n) => n.endsWith('.json'));
      this.removeTemps(col, shardDir, entries);
      for (let i = 0; i < names.length; i += BATCH) {
        const batch = names.slice(i, i + BATCH);
        const bodies = await Promise.all(batch.map((n) => readOrNone(join(shardDir, n))));
        batch.forEach((n, j) => {
          const body = bodies[j];
          if (body !== undefined) restore(decodeURIComponent(n.slice(0, -5)), JSON.parse(body));
        });
        await new Promise((r) => setImmediate(r));
        // Closing does not wait for the rest of a load nobody will use.
        if (this.closing) throw new Error(`file store ${this.dir} closed while loading ${col}`);
      }
    }
  }

  /**
   * Temp files (`.<id>.json.tmp`) a crash left behind mid-write: the record file beside one
   * is whole (steno renames only a complete temp file), so the temp file is garbage. Each is
   * removed in its record's write chain, so a write of that record in flight now (this may
   * run after listening) finishes first and a later one starts after the removal.
   */
  private removeTemps(col: string, shardDir: string, entries: string[]): void {
    for (const n of entries) {
      if (!n.startsWith('.') || !n.endsWith(TEMP_SUFFIX)) continue;
      let id: string;
      try {
        id = decodeURIComponent(n.slice(1, -TEMP_SUFFIX.length));
      } catch {
        continue; // not a name this store made
      }
      this.enqueue(col, id, () => rm(join(shardDir, n), { force: true })).catch(() => {});
    }
  }

  /** One record's file, or undefined when there is none. */
  private async readOne(col: string, id: string): Promise<unknown> {
    const body = await readOrNone(this.path(col, id));
    return body === undefined ? undefined : JSON.parse(body);
  }

  /** Resolves once the background load of every collection finished (tests, benchmarks). */
  loaded(): Promise<void> {
    this.beginLoad();
    return this.background;
  }

  protected override makeCollection(name: string, spec: CollectionSpec): MemoryCollection<unknown> {
    if (!spec.durable) return new MemoryCollection(name, spec);
    const persistence: Persistence = {
      write: (id, value) => this.enqueue(name, id, () => this.write(name, id, value)),
      remove: (id) => this.enqueue(name, id, () => this.remove(name, id)),
    };
    if (spec.mirrored) return new MemoryCollection(name, spec, persistence);
    const source = {
      read: (id: string) => this.readOne(name, id),
      readAll: (restore: (id: string, value: unknown) => void) => this.readAll(name, restore),
    };
    return new LazyCollection(name, spec, persistence, source, !this.present.has(name));
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
    this.present.clear();
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
    this.closing = true;
    this.beginLoad();
    await this.background;
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

/** How long after open the background load begins (start-up takes about a third of this). */
const BACKGROUND_AFTER_MS = 1000;

/** steno's temp file of `<id>.json` is `.<id>.json.tmp` in the same folder. */
const TEMP_SUFFIX = '.json.tmp';

/** Files read at once by a load: enough to keep the disk busy, few enough not to hold up requests. */
const BATCH = 16;

async function readdirOrNone(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (e) {
    // ENOTDIR: a stray file where a folder was expected holds no records.
    if (['ENOENT', 'ENOTDIR'].includes((e as NodeJS.ErrnoException).code ?? '')) return [];
    throw e;
  }
}

/** A file's text, or undefined when it is gone (deleted by a request while a load ran). */
async function readOrNone(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
