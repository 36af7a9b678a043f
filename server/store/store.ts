/**
 * The state interface every domain module talks to. Reads are synchronous from memory (the
 * request path never waits on disk to read); writes update memory at once and resolve when
 * the record is durable. A shared backend for many instances can implement the same
 * interface later.
 *
 * Records are treated as immutable values: change one by `put`ting a new object.
 */
export interface Collection<T> {
  readonly name: string;
  get(id: string): T | undefined;
  has(id: string): boolean;
  list(): T[];
  /** Records for which `pred` holds, without copying the whole collection first. */
  filter(pred: (value: T) => boolean): T[];
  readonly size: number;
  put(id: string, value: T): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** Remove every record for which `pred` holds; resolves to how many were removed. */
  deleteWhere(pred: (value: T) => boolean): Promise<number>;
}

export interface Store {
  readonly kind: 'file' | 'memory';
  /** Where records live on disk, when they do. */
  readonly location: string | undefined;
  collection<T>(name: string): Collection<T>;
  /** Drop every record of every collection. */
  clear(): Promise<void>;
  /** Resolve once every write issued so far is durable. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Names become file names in the file store, so keep them to a safe alphabet. */
export function assertCollectionName(name: string): void {
  if (!/^[a-z][a-zA-Z0-9_-]{0,40}$/.test(name)) throw new Error(`invalid collection name: ${name}`);
}
