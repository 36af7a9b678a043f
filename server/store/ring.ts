/**
 * A fixed-capacity ring buffer: pushing past capacity overwrites the oldest item, so memory
 * and the cost of a push stay constant however long the simulator runs. Slots are allocated
 * as they fill, so a ring that sees few items costs little. The oldest item can also be
 * taken out (`shift`), for a bound kept over many rings together.
 */
export class Ring<T> {
  private items: (T | undefined)[] = [];
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {}

  /** Add `item` as the newest; the item it overwrote when the ring was full. */
  push(item: T): T | undefined {
    if (this.capacity <= 0) return undefined;
    if (this.count === this.capacity) {
      const overwritten = this.items[this.start];
      this.items[this.start] = item;
      this.start = (this.start + 1) % this.capacity;
      return overwritten;
    }
    // Until the ring wraps, the next slot is at most one past the allocated ones.
    const at = (this.start + this.count) % this.capacity;
    if (at === this.items.length) this.items.push(item);
    else this.items[at] = item;
    this.count++;
    return undefined;
  }

  /** Take out the oldest item. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const oldest = this.items[this.start];
    this.items[this.start] = undefined;
    this.start = (this.start + 1) % this.capacity;
    this.count--;
    return oldest;
  }

  get length(): number {
    return this.count;
  }

  *newestFirst(): Generator<T> {
    for (let i = this.count - 1; i >= 0; i--) yield this.items[(this.start + i) % this.capacity]!;
  }

  /** Remove the items for which `pred` holds, keeping the order of the rest; how many went. */
  removeWhere(pred: (item: T) => boolean): number {
    const kept = [...this.newestFirst()].reverse().filter((x) => !pred(x));
    const removed = this.count - kept.length;
    this.items = kept;
    this.start = 0;
    this.count = kept.length;
    return removed;
  }
}
