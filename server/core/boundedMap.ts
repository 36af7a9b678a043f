/**
 * A Map that holds at most `limit` entries: adding a new key when full drops the oldest one
 * (insertion order). The one bounded cache of the server: token claims, user subs, made-up
 * transcripts, audio reads and served spec texts all keep a fixed amount of memory whatever
 * clients send.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}
