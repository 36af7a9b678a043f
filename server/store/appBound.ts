import type { Collection } from './store.js';

/** Removals of one bound in flight at once. */
const PARALLEL = 64;

/** One per-app bound: which records it counts and how one leaves (with what it owns). */
export interface AppBoundSpec<T> {
  /** The name the housekeeper's log and docs/configuration.md use. */
  name: string;
  collection: Collection<T>;
  /** How many of an app's records stay (0: no bound). */
  keep: number;
  /** The numeric field that orders them: the oldest go first. */
  order: string;
  /** The indexed field naming the app (collections.ts); `client_id` unless told. */
  field?: string;
  /** Removes one record and whatever it owns; false when it must stay for now (in use). */
  drop(id: string): Promise<boolean>;
}

/**
 * Keeps each app's records of one collection to the newest `keep`: writers `touch` the app
 * (a Set add, nothing more on the request path) and the housekeeper's every-tick sweep trims
 * the apps touched since, so what an app's traffic leaves behind stops growing however long
 * an instance runs. Apps touched by another instance sharing the store are trimmed by that
 * instance; `touchAll` (start-up) covers what an earlier run left over the bound.
 */
export class AppBound<T> {
  private readonly touched = new Set<string>();
  private readonly field: string;

  constructor(private readonly spec: AppBoundSpec<T>) {
    this.field = spec.field ?? 'client_id';
  }

  get name(): string {
    return this.spec.name;
  }

  get keep(): number {
    return this.spec.keep;
  }

  touch(clientId: string): void {
    if (this.spec.keep > 0) this.touched.add(clientId);
  }

  touchAll(clientIds: Iterable<string>): void {
    for (const id of clientIds) this.touch(id);
  }

  /** True while some touched app has not been looked at. */
  get behind(): boolean {
    return this.touched.size > 0;
  }

  /** Trim the touched apps, removing at most `budget` records; resolves to how many went. */
  async sweep(budget: number): Promise<number> {
    let removed = 0;
    for (const clientId of [...this.touched]) {
      if (removed >= budget) break;
      const { keep, order, collection } = this.spec;
      const extra = await collection.beyondNewest(this.field, clientId, keep, order);
      const now = extra.slice(0, budget - removed);
      // Removals side by side, a batch at a time: one at a time, each waiting behind the
      // traffic's own disk writes, trimmed slower than a busy app adds (the write soak saw
      // 16 files a second go while 35 came).
      let kept = 0;
      for (let i = 0; i < now.length; i += PARALLEL) {
        const went = await Promise.all(now.slice(i, i + PARALLEL).map((id) => this.spec.drop(id)));
        const n = went.filter(Boolean).length;
        removed += n;
        kept += went.length - n;
      }
      // Done with this app unless the budget cut it short or a record was in use: it stays
      // touched and is looked at again on the next tick.
      if (now.length === extra.length && kept === 0) this.touched.delete(clientId);
    }
    return removed;
  }
}
