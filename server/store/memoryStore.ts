import { type CollectionSpec, collectionSpec } from './collections.js';
import { MemoryCollection } from './memoryCollection.js';
import { Journal } from './memoryJournal.js';
import { assertCollectionName, type JournalLog, type Store, type UnverifiedBound } from './store.js';

/** `--in-memory`: every collection a MemoryCollection, the journal in memory rings. */
export class MemoryStore implements Store {
  get kind(): 'file' | 'memory' {
    return 'memory';
  }
  get location(): string | undefined {
    return undefined;
  }
  readonly shared = false;
  protected readonly collections = new Map<string, MemoryCollection<unknown>>();

  collection<T>(name: string): MemoryCollection<T> {
    return this.open<T>(name, false);
  }

  mirrored<T>(name: string): MemoryCollection<T> {
    return this.open<T>(name, true);
  }

  /** The collection `name`, made on first use (mirrored or not, as declared). */
  protected open<T>(name: string, mirrored?: boolean): MemoryCollection<T> {
    let c = this.collections.get(name);
    if (!c) {
      assertCollectionName(name);
      c = this.makeCollection(name, collectionSpec(name));
      this.collections.set(name, c);
    }
    if (mirrored !== undefined && c.spec.mirrored !== mirrored) {
      throw new Error(
        `collection ${name} is ${c.spec.mirrored ? '' : 'not '}mirrored: use store.${c.spec.mirrored ? 'mirrored' : 'collection'}()`,
      );
    }
    return c as MemoryCollection<T>;
  }

  protected makeCollection(name: string, spec: CollectionSpec): MemoryCollection<unknown> {
    return new MemoryCollection(name, spec);
  }

  journal(capacity: number, unverified?: UnverifiedBound): JournalLog {
    return new Journal(capacity, unverified);
  }

  sync(): undefined {
    return undefined;
  }

  async clear(): Promise<void> {
    for (const c of this.collections.values()) c.reset();
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
