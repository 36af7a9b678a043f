import type { Collection } from './store.js';

/**
 * A sweeper's walk through a collection, one page per round: each round looks at the `budget`
 * records after where the last one stopped (in id order), and starts over after the last. So a
 * round's cost is its page, however many records there are; `more` says a round should follow
 * at once (the housekeeper's "behind").
 */
export class PagedSweep<T> {
  private cursor: string | undefined;
  private unfinished = false;

  constructor(private readonly col: Collection<T>) {}

  /** Records of this round's page for which `visit` resolved true (it removed them). */
  async run(budget: number, visit: (value: T, id: string) => Promise<boolean>): Promise<number> {
    const page = await this.col.page(this.cursor, budget);
    this.unfinished = page.length >= budget;
    this.cursor = this.unfinished ? page.at(-1)![0] : undefined;
    let removed = 0;
    for (const [id, value] of page) if (await visit(value, id)) removed++;
    return removed;
  }

  /** The walk stopped before the end of the collection: the next round should come soon. */
  get more(): boolean {
    return this.unfinished;
  }
}
