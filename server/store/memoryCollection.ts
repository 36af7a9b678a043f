import { type CollectionSpec, indexValue } from './collections.js';
import type { Change, MirroredCollection } from './store.js';

/** Where a collection's writes go besides memory (the file store's disk). */
export interface Persistence {
  write(id: string, value: unknown): Promise<void>;
  remove(id: string): Promise<void>;
}

type Listener<T> = (id: string, value: T | undefined) => void;

/**
 * A collection held in a Map, with one Map per declared index field (value → ids), so
 * `findBy`/`deleteBy` never scan. In one process every collection is its own mirror, so the
 * same class serves `collection()` and `mirrored()`. The file store adds persistence.
 */
export class MemoryCollection<T> implements MirroredCollection<T> {
  private readonly map = new Map<string, T>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();
  private readonly listeners: Listener<T>[] = [];
  /** Ids in order for `page`, merged with `added` and cleared of deleted ids lazily (by sweepers). */
  private sorted: string[] = [];
  private readonly added = new Set<string>();
  private removed = 0;

  constructor(
    readonly name: string,
    readonly spec: CollectionSpec,
    private readonly persistence?: Persistence,
  ) {
    for (const f of spec.indexes) this.indexes.set(f, new Map());
  }

  peek(id: string): T | undefined {
    return this.map.get(id);
  }

  peekAll(): IterableIterator<T> {
    return this.map.values();
  }

  get size(): number {
    return this.map.size;
  }

  onChange(listener: Listener<T>): void {
    this.listeners.push(listener);
  }

  async get(id: string): Promise<T | undefined> {
    return this.map.get(id);
  }

  async findBy(field: string, value: string): Promise<T[]> {
    const ids = this.index(field).get(value);
    return ids ? [...ids].map((id) => this.map.get(id)!) : [];
  }

  async list(): Promise<T[]> {
    return [...this.map.values()];
  }

  async count(): Promise<number> {
    return this.map.size;
  }

  async put(id: string, value: T): Promise<void> {
    this.set(id, value);
    await this.persistence?.write(id, value);
  }

  async insert(id: string, value: T): Promise<boolean> {
    if (this.map.has(id)) return false;
    await this.put(id, value);
    return true;
  }

  async delete(id: string): Promise<boolean> {
    if (!this.unset(id)) return false;
    await this.persistence?.remove(id);
    return true;
  }

  async deleteBy(field: string, value: string): Promise<number> {
    const ids = [...(this.index(field).get(value) ?? [])];
    await Promise.all(ids.map((id) => this.delete(id)));
    return ids.length;
  }

  /** Off the request path (a sweep): sorts only the matching ids, when they are too many. */
  async beyondNewest(field: string, value: string, keep: number, order: string): Promise<string[]> {
    const ids = this.index(field).get(value);
    if (!ids || ids.size <= keep) return [];
    const at = (id: string): number => Number(indexValue(this.map.get(id), order) ?? 0);
    const sorted = [...ids].sort((a, b) => at(a) - at(b) || (a < b ? -1 : a > b ? 1 : 0));
    return sorted.slice(0, sorted.length - keep);
  }

  /**
   * Atomic because nothing else runs between reading the record and writing the next value
   * (`fn` is synchronous and the Map is the truth): concurrent updates of one id apply one
   * after the other, in call order, and their disk writes are chained in that order too.
   */
  async update<R>(id: string, fn: (current: T | undefined) => Change<T, R>): Promise<R> {
    const change = fn(this.map.get(id));
    if (change.next === null) await this.delete(id);
    else if (change.next !== undefined) await this.put(id, change.next);
    return change.result;
  }

  async page(after: string | undefined, limit: number): Promise<Array<[id: string, value: T]>> {
    const ids = this.ordered();
    let lo = 0;
    let hi = ids.length;
    if (after !== undefined) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (ids[mid]! <= after) lo = mid + 1;
        else hi = mid;
      }
    }
    const out: Array<[string, T]> = [];
    for (let i = lo; i < ids.length && out.length < limit; i++) {
      const v = this.map.get(ids[i]!);
      if (v !== undefined) out.push([ids[i]!, v]);
    }
    return out;
  }

  /** A record read back from disk at open: no write, no listener (nobody listens yet). */
  restore(id: string, value: T): void {
    this.set(id, value, false);
  }

  /** Everything gone from memory (the store empties the disk itself). */
  reset(): void {
    const ids = this.listeners.length > 0 ? [...this.map.keys()] : [];
    this.map.clear();
    for (const idx of this.indexes.values()) idx.clear();
    this.sorted = [];
    this.added.clear();
    this.removed = 0;
    for (const id of ids) this.emit(id, undefined);
  }

  private index(field: string): Map<string, Set<string>> {
    const idx = this.indexes.get(field);
    if (!idx) throw new Error(`collection ${this.name} has no index on ${field} (store/collections.ts)`);
    return idx;
  }

  private set(id: string, value: T, notify = true): void {
    const prev = this.map.get(id);
    if (prev === undefined) this.added.add(id);
    this.map.set(id, value);
    for (const [field, idx] of this.indexes) {
      const was = prev === undefined ? undefined : indexValue(prev, field);
      const now = indexValue(value, field);
      if (was === now) continue;
      if (was !== undefined) unlink(idx, was, id);
      if (now !== undefined) {
        let ids = idx.get(now);
        if (!ids) {
          ids = new Set();
          idx.set(now, ids);
        }
        ids.add(id);
      }
    }
    if (notify) this.emit(id, value);
  }

  private unset(id: string): boolean {
    const prev = this.map.get(id);
    if (prev === undefined) return false;
    this.map.delete(id);
    this.added.delete(id);
    this.removed++;
    for (const [field, idx] of this.indexes) {
      const was = indexValue(prev, field);
      if (was !== undefined) unlink(idx, was, id);
    }
    this.emit(id, undefined);
    return true;
  }

  private emit(id: string, value: T | undefined): void {
    for (const l of this.listeners) l(id, value);
  }

  /**
   * Every live id in order. New ids are sorted alone and merged in (linear), deleted ones
   * dropped once they are many; the request path only adds to a Set.
   */
  private ordered(): string[] {
    if (this.added.size === 0 && this.removed <= this.sorted.length / 2) return this.sorted;
    const fresh = [...this.added].sort();
    const old = this.sorted;
    const out: string[] = [];
    let i = 0;
    let j = 0;
    while (i < old.length || j < fresh.length) {
      let next: string;
      if (j >= fresh.length || (i < old.length && old[i]! < fresh[j]!)) next = old[i++]!;
      else {
        if (i < old.length && old[i] === fresh[j]) i++;
        next = fresh[j++]!;
      }
      if (this.map.has(next)) out.push(next);
    }
    this.sorted = out;
    this.added.clear();
    this.removed = 0;
    return out;
  }
}

function unlink(idx: Map<string, Set<string>>, value: string, id: string): void {
  const ids = idx.get(value);
  if (!ids) return;
  ids.delete(id);
  if (ids.size === 0) idx.delete(value);
}
