import type { CollectionSpec } from './collections.js';
import { MemoryCollection, type Persistence } from './memoryCollection.js';
import type { Change } from './store.js';

/** Where a lazily loaded collection's records come from (the file store's folder). */
export interface RecordSource<T> {
  /** One record by id, straight from where it is kept (undefined: there is none). */
  read(id: string): Promise<T | undefined>;
  /** Every record, handed to `restore` as it is read; bounded and yielding, so requests go on. */
  readAll(restore: (id: string, value: T) => void): Promise<void>;
}

/**
 * A collection that is usable before its records are in memory, so start-up does not wait for
 * 100,000 files. Until `load` finished, an id's record is read on its own the first time it
 * is needed (`get`, and before `insert/delete/update` decide), and from then on memory is its
 * truth ("known"); the loader passes over known ids, so it never overwrites a newer value nor
 * brings back a record deleted while it ran. Only what needs every record (`findBy`, `list`,
 * `count`, `page`, `deleteBy`) waits for the load.
 */
export class LazyCollection<T> extends MemoryCollection<T> {
  private loaded: boolean;
  private loading: Promise<void> | undefined;
  /** Ids whose value in memory is the truth while the load runs. */
  private readonly known = new Set<string>();
  /** Reads of one record in flight: two callers share one read (and so one truth). */
  private readonly reading = new Map<string, Promise<void>>();
  /** Bumped by `reset`: a load that started before it restores nothing. */
  private epoch = 0;

  constructor(
    name: string,
    spec: CollectionSpec,
    persistence: Persistence,
    private readonly source: RecordSource<T>,
    empty: boolean,
  ) {
    super(name, spec, persistence);
    this.loaded = empty;
  }

  /** Every record in memory (started on first call; the store starts it in the background). */
  load(): Promise<void> {
    if (this.loaded) return Promise.resolve();
    if (!this.loading) {
      const epoch = this.epoch;
      this.loading = this.source
        .readAll((id, value) => {
          if (epoch === this.epoch && !this.known.has(id)) this.restore(id, value);
        })
        .then(() => {
          if (epoch !== this.epoch) return;
          this.loaded = true;
          this.known.clear();
          this.reading.clear();
        });
      // A failed load is reported to whoever needs it; a later call tries again.
      this.loading.catch(() => {
        if (epoch === this.epoch) this.loading = undefined;
      });
    }
    return this.loading;
  }

  override async get(id: string): Promise<T | undefined> {
    if (!this.loaded && !this.known.has(id)) await this.fetch(id);
    return this.peek(id);
  }

  override async findBy(field: string, value: string): Promise<T[]> {
    await this.load();
    return super.findBy(field, value);
  }

  override async list(): Promise<T[]> {
    await this.load();
    return super.list();
  }

  override async count(): Promise<number> {
    await this.load();
    return super.count();
  }

  override async page(after: string | undefined, limit: number): Promise<Array<[id: string, value: T]>> {
    await this.load();
    return super.page(after, limit);
  }

  override async beyondNewest(field: string, value: string, keep: number, order: string): Promise<string[]> {
    await this.load();
    return super.beyondNewest(field, value, keep, order);
  }

  override async deleteBy(field: string, value: string): Promise<number> {
    await this.load();
    return super.deleteBy(field, value);
  }

  override put(id: string, value: T): Promise<void> {
    if (!this.loaded) this.known.add(id);
    return super.put(id, value);
  }

  override async insert(id: string, value: T): Promise<boolean> {
    if (!this.loaded && !this.known.has(id)) await this.fetch(id);
    return super.insert(id, value);
  }

  override async delete(id: string): Promise<boolean> {
    if (!this.loaded && !this.known.has(id)) await this.fetch(id);
    return super.delete(id);
  }

  /**
   * Still atomic: once the record is known, `fn` runs on it synchronously (MemoryCollection),
   * and concurrent first reads of one id share one `fetch`.
   */
  override async update<R>(id: string, fn: (current: T | undefined) => Change<T, R>): Promise<R> {
    if (!this.loaded && !this.known.has(id)) await this.fetch(id);
    return super.update(id, fn);
  }

  override reset(): void {
    this.epoch++;
    this.loaded = true;
    this.loading = undefined;
    this.known.clear();
    this.reading.clear();
    super.reset();
  }

  /** Make memory the truth for `id`: read its record unless a write got there first. */
  private fetch(id: string): Promise<void> {
    let p = this.reading.get(id);
    if (!p) {
      const epoch = this.epoch;
      p = this.source.read(id).then(
        (value) => {
          this.reading.delete(id);
          if (epoch !== this.epoch || this.loaded || this.known.has(id)) return;
          if (value !== undefined) this.restore(id, value);
          this.known.add(id);
        },
        (e) => {
          this.reading.delete(id);
          throw e;
        },
      );
      this.reading.set(id, p);
    }
    return p;
  }
}
