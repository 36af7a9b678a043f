/**
 * The state interface every domain module talks to, shaped for a networked engine as much as
 * for the embedded one: reads are asynchronous, invariants are kept by atomic `update`s (a row
 * lock in PostgreSQL, a per-record chain in one process), and look-ups go by key or by a
 * declared index (collections.ts), never by a scan of everything on the request path.
 *
 * Records are treated as immutable values: change one by `put`ting (or `update`ing to) a new
 * object. Domain modules never see SQL, files or maps: only this.
 */

/** What an `update` decides: the next value (`null` deletes, absent leaves it) and a result. */
export interface Change<T, R> {
  next?: T | null;
  result: R;
}

export interface Collection<T> {
  readonly name: string;
  get(id: string): Promise<T | undefined>;
  /** Records whose indexed `field` (declared in collections.ts) equals `value`. */
  findBy(field: string, value: string): Promise<T[]>;
  /** Every record: for the control API's listings and start-up checks, not the request path. */
  list(): Promise<T[]>;
  count(): Promise<number>;
  put(id: string, value: T): Promise<void>;
  /** Store `value` unless a record with this id exists; resolves to whether it was stored. */
  insert(id: string, value: T): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  /** Remove every record whose indexed `field` equals `value`; resolves to how many went. */
  deleteBy(field: string, value: string): Promise<number>;
  /**
   * Read-modify-write of one record, atomic against every other writer of that record (other
   * requests, other instances): `fn` sees the current value and decides the next one. `fn` is
   * synchronous and may run more than once (a backend may retry it); when it throws, nothing
   * is written and the error is the caller's.
   */
  update<R>(id: string, fn: (current: T | undefined) => Change<T, R>): Promise<R>;
  /**
   * Ids of the records whose indexed `field` equals `value` beyond the newest `keep` of them,
   * oldest first, by the number in their `order` field (ties by id): what a per-app bound
   * removes (store/appBound.ts). Empty when there are `keep` or fewer.
   */
  beyondNewest(field: string, value: string, keep: number, order: string): Promise<string[]>;
  /** Up to `limit` records with ids after `after`, in id order: how sweepers page through. */
  page(after: string | undefined, limit: number): Promise<Array<[id: string, value: T]>>;
}

/**
 * A small collection read on every request (apps, clocks, the instance record, fault rules):
 * every instance keeps a mirror it reads synchronously with `peek`. Writes go through the
 * store as for any collection and update the local mirror at once; `Store.sync` brings the
 * mirror up to date with what other instances wrote.
 */
export interface MirroredCollection<T> extends Collection<T> {
  peek(id: string): T | undefined;
  peekAll(): IterableIterator<T>;
  readonly size: number;
  /** Called after the mirror changed, with the record's new value (undefined: deleted). */
  onChange(listener: (id: string, value: T | undefined) => void): void;
}

/** A request journal entry as the control API shows it (admin.openapi.yaml JournalEntry). */
export type JournalEntry = import('../spec/admin-types.js').components['schemas']['JournalEntry'];

export interface JournalQuery {
  operation?: string | undefined;
  status?: number | undefined;
  /** Epoch ms (simulated clock): entries received at or after it. */
  sinceMs?: number | undefined;
  clientId?: string | undefined;
  /** true: only unverified claims; false: only the rest; undefined: both. */
  unverified?: boolean | undefined;
  /** HTTP method, exact. */
  method?: string | undefined;
  /** The path without its query string; a trailing `*` matches any path with that prefix. */
  path?: string | undefined;
  limit?: number | undefined;
  /** Only entries older than the one with this number (`req_<n>`): the next page of a listing. */
  beforeSeq?: number | undefined;
}

/** A journal count (admin.openapi.yaml RequestCount). */
export interface JournalCount {
  count: number;
  /** False when a ring looked at is full: older matches may be gone. */
  complete: boolean;
}

/** Whether a recorded path (query string included or not) matches a JournalQuery `path`. */
export function pathMatches(recorded: string, wanted: string): boolean {
  const q = recorded.indexOf('?');
  const path = q < 0 ? recorded : recorded.slice(0, q);
  return wanted.endsWith('*') ? path.startsWith(wanted.slice(0, -1)) : path === wanted;
}

/**
 * The ring of requests that only claimed an existing app's id (unverified): one per app, so
 * such claims, which anyone can make, never evict the app's own entries nor other strays.
 * App ids cannot hold `/`, so this key is no app's.
 */
export const unverifiedRing = (clientId: string): string => `unverified/${clientId}`;

/** What all unverified journal entries keep together, over every app. */
export interface UnverifiedBound {
  entries: number;
  bytes: number;
}

/**
 * An entry recorded cheaply: the facts the filters need, and how to build (and redact) the
 * rest. Building costs more than serving a simple request and most entries are never read,
 * so a log that keeps entries in memory builds one only when it is listed; a shared log
 * builds it at once, since it must write the finished, redacted entry.
 */
export interface DeferredEntry
  extends Pick<JournalEntry, 'operation' | 'status' | 'client_id' | 'unverified' | 'method'> {
  /** The request's path as received (query string included), for the `path` filter. */
  readonly rawPath: string;
  /** About how many bytes it keeps until built (it is bounded: control/entryBounds.ts). */
  readonly retainedBytes: number;
  build(): Omit<JournalEntry, 'id'>;
}

/**
 * Where the request journal lives: the last `capacity` entries of each app ("ring"), plus a
 * ring for requests that belong to no app (`ring` undefined). Ids (`req_…`) are given by the
 * log, so they are unique across every instance sharing it.
 */
export interface JournalLog {
  /**
   * Record an entry; its id. A memory log answers at once; a shared log's promise settles
   * once the entry is committed (what the recorder waits for before the answer's last byte).
   */
  add(
    entry: Omit<JournalEntry, 'id'> | DeferredEntry,
    timeMs: number,
    ring?: string,
  ): string | Promise<string>;
  /**
   * Entries matching every given filter, newest first (an app's ring plus its unverified
   * strays). One app's listing never holds more than `capacity` entries over all its pages
   * (`--journal-size` is "entries kept per app"): the newest of its merged rings.
   */
  list(q?: JournalQuery): Promise<JournalEntry[]>;
  /** How many kept entries match every filter of `q` (its `limit` ignored), building none. */
  count(q: JournalQuery): Promise<JournalCount>;
  /** Drop every entry, or one app's (its ring and its strays); resolves to how many went. */
  clear(clientId?: string): Promise<number>;
}

export interface Store {
  readonly kind: 'file' | 'memory' | 'postgres';
  /** Where records live (a folder, or a redacted database URL), when they live anywhere. */
  readonly location: string | undefined;
  /** True when other processes may share this state (PostgreSQL). */
  readonly shared: boolean;
  collection<T>(name: string): Collection<T>;
  mirrored<T>(name: string): MirroredCollection<T>;
  /**
   * The request journal kept with this store (memory rings for the embedded stores, which
   * also hold every unverified entry together within `unverified`; a shared store keeps its
   * journal in the database).
   */
  journal(capacity: number, unverified?: UnverifiedBound): JournalLog;
  /**
   * Bring every mirror up to date with writes other instances committed before this call.
   * Single-process stores return undefined, so the request path has nothing to wait for.
   */
  sync(): Promise<void> | undefined;
  /** Drop every record of every collection. */
  clear(): Promise<void>;
  /** Resolve once every write issued so far is durable. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Names become file names and SQL literals, so keep them to a safe alphabet. */
export function assertCollectionName(name: string): void {
  if (!/^[a-z][a-zA-Z0-9_-]{0,40}$/.test(name)) throw new Error(`invalid collection name: ${name}`);
}
