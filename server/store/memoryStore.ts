import { assertCollectionName, type Collection, type Store } from './store.js';

/**
 * Maps in memory. Used for `--in-memory` and as the read side of the file store, which adds
 * persistence through the `onWrite`/`onDelete` hooks.
 */
export class MemoryCollection<T> implements Collection<T> {
  readonly map = new Map<string, T>();

  constructor(
    readonly name: string,
    private readonly onWrite?: (id: string, value: T) => Promise<void>,
    private readonly onDelete?: (id: string) => Promise<void>,
  ) {}

  get(id: string): T | undefined {
    return this.map.get(id);
  }

  has(id: string): boolean {
    return this.map.has(id);
  }

  list(): T[] {
    return [...this.map.values()];
  }

  filter(pred: (value: T) => boolean): T[] {
    const out: T[] = [];
    for (const v of this.map.values()) if (pred(v)) out.push(v);
    return out;
  }

  get size(): number {
    return this.map.size;
  }

  async put(id: string, value: T): Promise<void> {
    this.map.set(id, value);
    await this.onWrite?.(id, value);
  }

  async delete(id: string): Promise<boolean> {
    const had = this.map.delete(id);
    if (had) await this.onDelete?.(id);
    return had;
  }

  async deleteWhere(pred: (value: T) => boolean): Promise<number> {
    const ids: string[] = [];
    for (const [id, v] of this.map) if (pred(v)) ids.push(id);
    await Promise.all(ids.map((id) => this.delete(id)));
    return ids.length;
  }
}

export class MemoryStore implements Store {
  get kind(): 'file' | 'memory' {
    return 'memory';
  }
  get location(): string | undefined {
    return undefined;
  }
  protected readonly collections = new Map<string, MemoryCollection<unknown>>();

  collection<T>(name: string): Collection<T> {
    let c = this.collections.get(name);
    if (!c) {
      assertCollectionName(name);
      c = this.makeCollection(name);
      this.collections.set(name, c);
    }
    return c as unknown as Collection<T>;
  }

  protected makeCollection(name: string): MemoryCollection<unknown> {
    return new MemoryCollection(name);
  }

  async clear(): Promise<void> {
    for (const c of this.collections.values()) c.map.clear();
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
