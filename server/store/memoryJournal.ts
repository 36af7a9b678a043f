import { Ring } from './ring.js';
import {
  type DeferredEntry,
  type JournalCount,
  type JournalEntry,
  type JournalLog,
  type JournalQuery,
  pathMatches,
  type UnverifiedBound,
  unverifiedRing,
} from './store.js';

/** The defaults of `--journal-unverified` and `--journal-unverified-bytes`. */
const DEFAULT_UNVERIFIED_BOUND: UnverifiedBound = { entries: 5000, bytes: 16 * 1024 * 1024 };

interface Slot {
  id: string;
  /** The built entry, or the deferred one until someone lists it. */
  entry: JournalEntry | DeferredEntry;
  timeMs: number;
  seq: number;
  /** Unverified entries only: their ring, size, and whether they already went. */
  ring?: string;
  bytes?: number;
  gone?: boolean;
}

const built = (slot: Slot): JournalEntry => {
  const e = slot.entry;
  if (!('build' in e)) return e;
  const full: JournalEntry = { id: slot.id, ...e.build() };
  slot.entry = full;
  return full;
};

/** The ring of requests that belong to no app (no credentials, an unknown client id). */
const NO_APP = '';

const isUnverifiedRing = (key: string): boolean => key.startsWith(unverifiedRing(''));

/** About what an entry keeps in memory until it is dropped. */
const sizeOf = (entry: Omit<JournalEntry, 'id'> | DeferredEntry): number =>
  'build' in entry ? entry.retainedBytes : Buffer.byteLength(JSON.stringify(entry));

/**
 * The request journal of the embedded stores: the last `capacity` requests of EACH partner
 * app, and of requests that belong to no app, already redacted by whoever records them. One
 * ring per app, so one CI job's thousand requests never evict another job's entries; each ring
 * is fixed-size, so recording costs the same however long the simulator runs. The number of
 * rings is bounded by the number of apps (requests that only claimed an id go to the no-app
 * ring, or the claimed app's unverified ring). Kept in memory only: it describes this run's traffic, not simulated state. Entries
 * may be deferred (store.ts DeferredEntry): built and redacted only when someone lists them.
 */
export class Journal implements JournalLog {
  private readonly rings = new Map<string, Ring<Slot>>();
  private seq = 0;
  /** Unverified entries over every app, oldest first (some already gone from their rings). */
  private unverifiedOrder: Slot[] = [];
  private orderHead = 0;
  private unverifiedKept = 0;
  private unverifiedBytes = 0;

  constructor(
    readonly capacity: number,
    /**
     * What requests that only claimed an app's id keep together, over every app (`--journal-unverified`,
     * `--journal-unverified-bytes`): anyone can make such claims, for any number of apps, so
     * one ring per app alone would let them grow memory with the number of apps.
     */
    private readonly unverifiedBound: UnverifiedBound = DEFAULT_UNVERIFIED_BOUND,
  ) {}

  /** Record an entry in `app`'s ring (undefined: the no-app ring); returns its id at once. */
  add(entry: Omit<JournalEntry, 'id'> | DeferredEntry, timeMs: number, app?: string): string {
    const seq = ++this.seq;
    const id = `req_${String(seq).padStart(6, '0')}`;
    if (this.capacity === 0) return id;
    const key = app ?? NO_APP;
    let ring = this.rings.get(key);
    if (!ring) {
      ring = new Ring<Slot>(this.capacity);
      this.rings.set(key, ring);
    }
    const slot: Slot = { id, entry: 'build' in entry ? entry : { id, ...entry }, timeMs, seq };
    const overwritten = ring.push(slot);
    if (isUnverifiedRing(key)) {
      if (overwritten) this.forget(overwritten);
      slot.ring = key;
      slot.bytes = sizeOf(entry);
      this.unverifiedKept++;
      this.unverifiedBytes += slot.bytes;
      this.unverifiedOrder.push(slot);
      this.trimUnverified();
    }
    return id;
  }

  /** Drop the oldest unverified entries, whatever their app, until all of them fit the bound. */
  private trimUnverified(): void {
    const { entries, bytes } = this.unverifiedBound;
    while (
      (this.unverifiedKept > entries || this.unverifiedBytes > bytes) &&
      this.orderHead < this.unverifiedOrder.length
    ) {
      const oldest = this.unverifiedOrder[this.orderHead++]!;
      if (oldest.gone) continue;
      // Each ring is oldest first too, so the oldest of all is the oldest of its ring.
      const ring = this.rings.get(oldest.ring!);
      ring?.shift();
      if (ring?.length === 0) this.rings.delete(oldest.ring!);
      this.forget(oldest);
    }
    // Entries that left their ring otherwise (overwritten, cleared) linger in the order until
    // passed: compact once they are most of it, so the order stays within twice what is kept.
    const waiting = this.unverifiedOrder.length - this.orderHead;
    if (this.orderHead > 1024 || waiting > 2 * this.unverifiedKept + 1024) {
      this.unverifiedOrder = this.unverifiedOrder.slice(this.orderHead).filter((s) => !s.gone);
      this.orderHead = 0;
    }
  }

  private forget(slot: Slot): void {
    if (slot.gone || slot.bytes === undefined) return;
    slot.gone = true;
    this.unverifiedKept--;
    this.unverifiedBytes -= slot.bytes;
  }

  /** What unverified entries keep now, over every app. */
  get unverified(): { entries: number; bytes: number } {
    return { entries: this.unverifiedKept, bytes: this.unverifiedBytes };
  }

  /**
   * An app's own ring, plus requests that only claimed its id (its unverified ring, and the
   * no-app ring's claims made before it existed); else every ring.
   */
  private ringsFor(q: JournalQuery): Ring<Slot>[] {
    return q.clientId === undefined
      ? [...this.rings.values()]
      : [q.clientId, unverifiedRing(q.clientId), NO_APP]
          .map((k) => this.rings.get(k))
          .filter((r) => r !== undefined);
  }

  async count(q: JournalQuery): Promise<JournalCount> {
    let count = 0;
    let complete = true;
    for (const ring of this.ringsFor(q)) {
      let oldest: Slot | undefined;
      for (const slot of ring.newestFirst()) {
        oldest = slot;
        if (matches(slot, q)) count++;
      }
      // A full ring may have dropped matches, unless its oldest entry predates `since`.
      const full = ring.length >= this.capacity;
      if (full && !(q.sinceMs !== undefined && oldest && oldest.timeMs < q.sinceMs)) complete = false;
    }
    return { count, complete };
  }

  async list(q: JournalQuery = {}): Promise<JournalEntry[]> {
    const limit = q.limit ?? 100;
    const rings = this.ringsFor(q);
    // One app's listing (`--journal-size`, "kept per app") shows only the newest `capacity` of its merged rings (own, unverified, no-app strays), on
    // every page: they are picked before the cursor (`beforeSeq`) applies.
    const perApp = q.clientId !== undefined;
    const upTo = perApp ? this.capacity : limit;
    const filter = perApp ? { ...q, beforeSeq: undefined } : q;
    let picked: Slot[] = [];
    for (const ring of rings) {
      let taken = 0;
      for (const slot of ring.newestFirst()) {
        if (taken >= upTo) break;
        if (!matches(slot, filter)) continue;
        picked.push(slot);
        taken++;
      }
    }
    picked = picked.sort((a, b) => b.seq - a.seq).slice(0, upTo);
    if (perApp && q.beforeSeq !== undefined) picked = picked.filter((s) => s.seq < q.beforeSeq!);
    return picked.slice(0, limit).map(built);
  }

  /** Drop every entry, or only those of one app. Ids keep counting: one id, one request per run. */
  async clear(clientId?: string): Promise<number> {
    if (clientId === undefined) {
      const n = this.length;
      this.rings.clear();
      this.unverifiedOrder = [];
      this.orderHead = this.unverifiedKept = this.unverifiedBytes = 0;
      return n;
    }
    let own = 0;
    for (const key of [clientId, unverifiedRing(clientId)]) {
      const ring = this.rings.get(key);
      if (!ring) continue;
      own += ring.length;
      if (isUnverifiedRing(key)) for (const slot of ring.newestFirst()) this.forget(slot);
      this.rings.delete(key);
    }
    const strays = this.rings.get(NO_APP)?.removeWhere((s) => s.entry.client_id === clientId) ?? 0;
    return own + strays;
  }

  get length(): number {
    let n = 0;
    for (const r of this.rings.values()) n += r.length;
    return n;
  }
}

function matches(slot: Slot, q: JournalQuery): boolean {
  const e = slot.entry;
  if (q.operation !== undefined && e.operation !== q.operation) return false;
  if (q.status !== undefined && e.status !== q.status) return false;
  if (q.clientId !== undefined && e.client_id !== q.clientId) return false;
  if (q.unverified !== undefined && (e.unverified === true) !== q.unverified) return false;
  if (q.sinceMs !== undefined && slot.timeMs < q.sinceMs) return false;
  if (q.method !== undefined && e.method !== q.method) return false;
  if (q.path !== undefined && !pathMatches('build' in e ? e.rawPath : e.path, q.path)) return false;
  if (q.beforeSeq !== undefined && slot.seq >= q.beforeSeq) return false;
  return true;
}
