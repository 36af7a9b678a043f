import type { Collection } from './store.js';

/** One page of a listing: its records and, when more follow, the position to go on from. */
export interface Page<T> {
  items: T[];
  /** The id after which the next page starts; absent on the last page. */
  next?: string;
}

/** Where a listing page starts and how long it is; `only` narrows it to an indexed value. */
export interface PageQuery {
  after?: string | undefined;
  limit: number;
  only?: { field: string; value: string } | undefined;
}

/**
 * Up to `limit` records in id order after `after`. Without `only` the store's `page` reads just
 * this page (a PostgreSQL range scan, a binary search in memory), so a page costs the same
 * whatever the collection holds; with it, the index gives that value's records (one app's),
 * so the cost follows that app's records, never everyone's. One record more is read to tell
 * whether another page follows.
 */
export async function recordPage<T>(
  c: Collection<T>,
  idOf: (record: T) => string,
  q: PageQuery,
): Promise<Page<T>> {
  let rows: Array<[string, T]>;
  if (q.only === undefined) rows = await c.page(q.after, q.limit + 1);
  else {
    const after = q.after;
    rows = (await c.findBy(q.only.field, q.only.value))
      .map((r): [string, T] => [idOf(r), r])
      .filter(([id]) => after === undefined || id > after)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
  const page = cutPage(rows, q.limit, ([id]) => id);
  return { ...page, items: page.items.map(([, r]) => r) };
}

/**
 * The first `limit` of `rows` (already in the listing's order and past its cursor) and, when
 * more follow, the position of the last one shown: where the next page starts.
 */
export function cutPage<T, P>(rows: T[], limit: number, positionOf: (row: T) => P): { items: T[]; next?: P } {
  const items = rows.slice(0, limit);
  return rows.length > limit ? { items, next: positionOf(items.at(-1)!) } : { items };
}
