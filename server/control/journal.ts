import type { components } from '../spec/admin-types.js';
import { Ring } from './ring.js';

export type JournalEntry = components['schemas']['JournalEntry'];

export interface JournalQuery {
  operation?: string | undefined;
  status?: number | undefined;
  /** Epoch ms (simulated clock): entries received at or after it. */
  sinceMs?: number | undefined;
  clientId?: string | undefined;
  limit?: number | undefined;
}

/**
 * An entry recorded cheaply: the facts the filters need, and how to build (and redact) the
 * rest. Building costs more than serving a simple request, and most entries are never read,
 * so the in-memory journal builds one only when it is listed (once; then it is kept).
 */
export interface DeferredEntry extends Pick<JournalEntry, 'operation' | 'status' | 'client_id'> {
  build(): Omit<JournalEntry, 'id'>;
}

export interface Slot {
  id: string;
  /** The built entry, or the deferred one until someone lists it. */
  entry: JournalEntry | DeferredEntry;
  timeMs: number;
  seq: number;
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

/**
 * The request journal: the last `capacity` requests of EACH partner app, and of requests that
 * belong to no app, already redacted by whoever records them. One ring per app, so one CI job's
 * thousand requests never evict another job's entries; each ring is fixed-size, so recording
 * costs the same however long the simulator runs. The number of rings is bounded by the number
 * of apps (requests that only claimed an id go to the no-app ring). Kept in memory only: it
 * describes this run's traffic, not simulated state.
 */
export class Journal {
  private readonly rings = new Map<string, Ring<Slot>>();
  private seq = 0;

  constructor(readonly capacity: number) {}

  /** Record an entry in `app`'s ring (undefined: the no-app ring); returns its id. */
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
    ring.push({ id, entry: 'build' in entry ? entry : { id, ...entry }, timeMs, seq });
    return id;
  }

  /** Entries matching every given filter, newest first. */
  list(q: JournalQuery = {}): JournalEntry[] {
    const limit = q.limit ?? 100;
    // An app's own ring, plus unverified requests that only claimed its id; else every ring.
    const rings =
      q.clientId === undefined
        ? [...this.rings.values()]
        : [this.rings.get(q.clientId), this.rings.get(NO_APP)].filter((r) => r !== undefined);
    const picked: Slot[] = [];
    for (const ring of rings) {
      let taken = 0;
      for (const slot of ring.newestFirst()) {
        if (taken >= limit) break;
        if (!matches(slot, q)) continue;
        picked.push(slot);
        taken++;
      }
    }
    return picked
      .sort((a, b) => b.seq - a.seq)
      .slice(0, limit)
      .map(built);
  }

  /** Drop every entry, or only those of one app; returns how many went. */
  clear(clientId?: string): number {
    if (clientId === undefined) {
      const n = this.length;
      this.rings.clear();
      return n;
    }
    const own = this.rings.get(clientId)?.length ?? 0;
    this.rings.delete(clientId);
    const strays = this.rings.get(NO_APP)?.removeWhere((s) => s.entry.client_id === clientId) ?? 0;
    return own + strays;
  }

  get length(): number {
    let n = 0;
    for (const r of this.rings.values()) n += r.length;
    return n;
  }

  resetAll(): void {
    this.clear();
    this.seq = 0;
  }

  resetApp(clientId: string): void {
    this.clear(clientId);
  }
}

function matches(slot: Slot, q: JournalQuery): boolean {
  const e = slot.entry;
  if (q.operation !== undefined && e.operation !== q.operation) return false;
  if (q.status !== undefined && e.status !== q.status) return false;
  if (q.clientId !== undefined && e.client_id !== q.clientId) return false;
  if (q.sinceMs !== undefined && slot.timeMs < q.sinceMs) return false;
  return true;
}
