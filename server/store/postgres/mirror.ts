import type { CollectionSpec } from '../collections.js';
import type { MirroredCollection } from '../store.js';
import { PgCollection } from './pgCollection.js';
import type { Pool } from './pool.js';

/**
 * The in-memory side of a mirrored collection: the records, the version each local value was
 * written at, and `known`, the version up to which every change is applied. A change is
 * applied only when it is newer than what the mirror holds for that id, so a sync answer that
 * arrives after this instance's own newer write never rolls the record back.
 */
export class Mirror<T> {
  readonly map = new Map<string, T>();
  /** Version of each id's local value (live or deleted). */
  private readonly at = new Map<string, number>();
  /** Every change with a version <= known is applied; -1: never loaded. */
  known = -1;
  private readonly listeners: Array<(id: string, value: T | undefined) => void> = [];

  onChange(listener: (id: string, value: T | undefined) => void): void {
    this.listeners.push(listener);
  }

  /** One change (undefined: deleted) written at `version`; ignored if not newer. */
  apply(id: string, value: T | undefined, version: number): void {
    if ((this.at.get(id) ?? -1) >= version) return;
    this.at.set(id, version);
    if (value === undefined) {
      if (!this.map.delete(id)) return;
    } else this.map.set(id, value);
    for (const l of this.listeners) l(id, value);
  }

  /** Every change up to `version` applied: deleted ids older than that need no memory. */
  advance(version: number): void {
    if (version <= this.known) return;
    this.known = version;
    for (const [id, v] of this.at) if (v <= version && !this.map.has(id)) this.at.delete(id);
  }

  /**
   * The whole collection as read at a point where everything up to `version` was committed:
   * what is missing from `rows` is gone, unless this instance wrote it later.
   */
  replace(rows: Iterable<[id: string, value: T, version: number]>, version: number): void {
    let horizon = version;
    const seen = new Set<string>();
    for (const [id, value, v] of rows) {
      seen.add(id);
      horizon = Math.max(horizon, v);
      this.apply(id, value, v);
    }
    for (const id of [...this.map.keys()])
      if (!seen.has(id) && (this.at.get(id) ?? -1) <= horizon) this.apply(id, undefined, horizon + 0.5);
    this.advance(version);
  }
}

/** A mirrored collection: its rows in `records` (pgCollection.ts), plus this instance's copy read with `peek`. */
export class PgMirroredCollection<T> extends PgCollection<T> implements MirroredCollection<T> {
  constructor(
    name: string,
    db: Pool,
    spec: CollectionSpec,
    private readonly local: Mirror<T>,
  ) {
    super(name, db, spec, local);
  }

  peek(id: string): T | undefined {
    return this.local.map.get(id);
  }

  peekAll(): IterableIterator<T> {
    return this.local.map.values();
  }

  get size(): number {
    return this.local.map.size;
  }

  onChange(listener: (id: string, value: T | undefined) => void): void {
    this.local.onChange(listener);
  }
}
