/**
 * Which of many needles occur in a text, in one pass over the text whatever their number
 * (Aho-Corasick): a request's path is checked against 10,000 `path_contains` rules in the
 * time of reading it once, plus the rules that do match. Needles are added one at a time; the
 * links the search follows are rebuilt on the first search after an addition.
 */
export class Needles<V> {
  private readonly next: Array<Map<number, number>> = [new Map()];
  private readonly values: V[][] = [[]];
  /** Longest proper suffix of a node's text that is also a node (the root for none). */
  private fail: number[] = [0];
  /** Nearest node along the fail links that ends a needle (0: none). */
  private out: number[] = [0];
  private linked = true;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(needle: string, value: V): void {
    let node = 0;
    for (let i = 0; i < needle.length; i++) {
      const c = needle.charCodeAt(i);
      let to = this.next[node]!.get(c);
      if (to === undefined) {
        to = this.next.length;
        this.next.push(new Map());
        this.values.push([]);
        this.next[node]!.set(c, to);
      }
      node = to;
    }
    this.values[node]!.push(value);
    this.count++;
    this.linked = false;
  }

  /** The values of every needle found in `text`, each needle's once, in no particular order. */
  find(text: string): V[] {
    if (!this.linked) this.link();
    const found: V[] = [];
    const seen = new Set<number>();
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let to = this.next[node]!.get(c);
      while (to === undefined && node !== 0) {
        node = this.fail[node]!;
        to = this.next[node]!.get(c);
      }
      node = to ?? 0;
      for (let o = this.values[node]!.length > 0 ? node : this.out[node]!; o !== 0; o = this.out[o]!) {
        if (seen.has(o)) break; // and so was every shorter needle on from it
        seen.add(o);
        found.push(...this.values[o]!);
      }
    }
    return found;
  }

  /** Fail and output links, breadth first (a node's links come from shorter texts). */
  private link(): void {
    const n = this.next.length;
    this.fail = new Array<number>(n).fill(0);
    this.out = new Array<number>(n).fill(0);
    const queue: number[] = [...this.next[0]!.values()];
    for (let q = 0; q < queue.length; q++) {
      const node = queue[q]!;
      for (const [c, child] of this.next[node]!) {
        let f = this.fail[node]!;
        let to = this.next[f]!.get(c);
        while (to === undefined && f !== 0) {
          f = this.fail[f]!;
          to = this.next[f]!.get(c);
        }
        const link = to !== undefined && to !== child ? to : 0;
        this.fail[child] = link;
        this.out[child] = this.values[link]!.length > 0 ? link : this.out[link]!;
        queue.push(child);
      }
    }
    this.linked = true;
  }
}
