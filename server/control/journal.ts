import type { components } from '../spec/admin-types.js';

export type JournalEntry = components['schemas']['JournalEntry'];

export interface JournalQuery {
  operation?: string | undefined;
  status?: number | undefined;
  /** Epoch ms (simulated clock): entries received at or after it. */
  sinceMs?: number | undefined;
  clientId?: string | undefined;
  limit?: number | undefined;
}

interface Slot {
  entry: JournalEntry;
  timeMs: number;
}

/**
 * The request journal: the last `capacity` requests to the partner API and the storage host,
 * already redacted by whoever records them. A fixed ring of slots, so recording costs the
 * same however long the simulator runs, and memory stays bounded (`--journal-size`). Kept in
 * memory only: it describes this run's traffic, not simulated state.
 */
export class Journal {
  private slots: (Slot | undefined)[];
  private head = 0;
  private size = 0;
  private seq = 0;

  constructor(readonly capacity: number) {
    this.slots = new Array(Math.max(0, capacity));
  }

  add(entry: Omit<JournalEntry, 'id'>, timeMs: number): JournalEntry {
    const full: JournalEntry = { id: `req_${String(++this.seq).padStart(6, '0')}`, ...entry };
    if (this.capacity === 0) return full;
    this.slots[this.head] = { entry: full, timeMs };
    this.head = (this.head + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
    return full;
  }

  /** Entries matching every given filter, newest first. */
  list(q: JournalQuery = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const limit = q.limit ?? 100;
    for (const slot of this.newestFirst()) {
      if (out.length >= limit) break;
      const e = slot.entry;
      if (q.operation !== undefined && e.operation !== q.operation) continue;
      if (q.status !== undefined && e.status !== q.status) continue;
      if (q.clientId !== undefined && e.client_id !== q.clientId) continue;
      if (q.sinceMs !== undefined && slot.timeMs < q.sinceMs) continue;
      out.push(e);
    }
    return out;
  }

  /** Drop every entry, or only those of one app; returns how many went. */
  clear(clientId?: string): number {
    const before = this.size;
    const kept =
      clientId === undefined
        ? []
        : [...this.newestFirst()].reverse().filter((s) => s.entry.client_id !== clientId);
    this.slots = new Array(Math.max(0, this.capacity));
    this.head = 0;
    this.size = 0;
    for (const s of kept) {
      this.slots[this.head] = s;
      this.head = (this.head + 1) % this.capacity;
      this.size++;
    }
    return before - this.size;
  }

  get length(): number {
    return this.size;
  }

  resetAll(): void {
    this.clear();
    this.seq = 0;
  }

  resetApp(clientId: string): void {
    this.clear(clientId);
  }

  private *newestFirst(): Generator<Slot> {
    for (let i = 1; i <= this.size; i++) {
      const slot = this.slots[(this.head - i + this.capacity) % this.capacity];
      if (slot) yield slot;
    }
  }
}
