/**
 * A fixed-capacity ring buffer: pushing past capacity overwrites the oldest item, so memory
 * and the cost of a push stay constant however long the simulator runs. Slots are allocated
 * as they fill, so a ring that sees few items costs little.
 */
export class Ring<T> {
  private items: T[] = [];
  private head = 0;

  constructor(readonly capacity: number) {}

  push(item: T): void {
    if (this.capacity <= 0) return;
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return;
    }
    this.items[this.head] = item;
    this.head = (this.head + 1) % this.capacity;
  }

  get length(): number {
    return this.items.length;
  }

  *newestFirst(): Generator<T> {
    const n = this.items.length;
    // Until full, `head` stays 0 and the newest item is the last one pushed.
    const newest = n < this.capacity ? n - 1 : (this.head - 1 + n) % n;
    for (let i = 0; i < n; i++) yield this.items[(newest - i + n) % n]!;
  }

  /** Remove the items for which `pred` holds, keeping the order of the rest; how many went. */
  removeWhere(pred: (item: T) => boolean): number {
    const kept = [...this.newestFirst()].reverse().filter((x) => !pred(x));
    const removed = this.items.length - kept.length;
    this.items = kept;
    this.head = 0;
    return removed;
  }
}
