import type { Collection } from '../store/store.js';

/** What the index needs of a stored rule. */
export interface IndexedRule {
  id: string;
  seq: number;
  operation: string;
  match?: { client_id?: string | undefined } | undefined;
}

interface Entry {
  id: string;
  seq: number;
}

/** Key of the rules that apply to every app. */
const ANY_APP = '';

/**
 * Rule ids by operation, then by the app they are scoped to (or to every app), each list in
 * creation order. A request looks only at the rules of its operation scoped to its app or to
 * every app: 10,000 rules of another app cost it nothing. The collection stays the truth
 * (counts change there); the index only says where to look, and is rebuilt on first use after
 * anything but an append changed the set of rules (deletes, clears, resets: control calls).
 */
export class FaultIndex<R extends IndexedRule> {
  private byOp = new Map<string, Map<string, Entry[]>>();
  private maxSeq = 0;
  private stale = true;

  constructor(private readonly rules: Collection<R>) {}

  /** The set of rules changed in a way `add` does not describe. */
  invalidate(): void {
    this.stale = true;
  }

  /** Sequence number for a new rule: after every stored one. */
  nextSeq(): number {
    this.fresh();
    return this.maxSeq + 1;
  }

  /** A rule just stored with `nextSeq()`: appended, no rebuild. */
  add(rule: R): void {
    if (this.stale) return;
    this.append(rule);
  }

  /** Rules of `operation` that could apply to `clientId`, in creation order, as stored now. */
  *candidates(operation: string, clientId: string | undefined): Generator<R> {
    this.fresh();
    const apps = this.byOp.get(operation);
    if (!apps) return;
    const all = apps.get(ANY_APP) ?? [];
    const own = (clientId !== undefined && clientId !== ANY_APP && apps.get(clientId)) || [];
    // Merge the two lists by creation order.
    let i = 0;
    let j = 0;
    while (i < all.length || j < own.length) {
      const next = j >= own.length || (i < all.length && all[i]!.seq < own[j]!.seq) ? all[i++]! : own[j++]!;
      const rule = this.rules.get(next.id);
      if (rule) yield rule;
    }
  }

  private fresh(): void {
    if (!this.stale) return;
    this.byOp = new Map();
    this.maxSeq = 0;
    for (const r of this.rules.list().sort((a, b) => a.seq - b.seq)) this.append(r);
    this.stale = false;
  }

  private append(r: R): void {
    let apps = this.byOp.get(r.operation);
    if (!apps) {
      apps = new Map();
      this.byOp.set(r.operation, apps);
    }
    const key = r.match?.client_id ?? ANY_APP;
    let list = apps.get(key);
    if (!list) {
      list = [];
      apps.set(key, list);
    }
    list.push({ id: r.id, seq: r.seq });
    this.maxSeq = Math.max(this.maxSeq, r.seq);
  }
}
