import type { MirroredCollection } from '../store/store.js';

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
 * every app: 10,000 rules of another app cost it nothing. The mirror stays the truth (counts
 * change there); the index only says where to look. It follows the mirror's changes (also
 * those other instances made): a new rule after every known one is appended, a deleted one
 * makes it rebuild on first use (deletes, clears, resets: control calls).
 */
export class FaultIndex<R extends IndexedRule> {
  private byOp = new Map<string, Map<string, Entry[]>>();
  private maxSeq = 0;
  private stale = true;

  private readonly known = new Set<string>();

  constructor(private readonly rules: MirroredCollection<R>) {
    rules.onChange((id, rule) => {
      if (rule === undefined) this.invalidate();
      else if (!this.known.has(id)) this.add(rule);
    });
  }

  /** The set of rules changed in a way `add` does not describe. */
  invalidate(): void {
    this.stale = true;
  }

  /** Sequence number for a new rule: after every stored one. */
  nextSeq(): number {
    this.fresh();
    return this.maxSeq + 1;
  }

  /** A rule new to the mirror: appended when it comes after every known one, else a rebuild. */
  private add(rule: R): void {
    if (this.stale) return;
    if (rule.seq > this.maxSeq) this.append(rule);
    else this.invalidate();
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
      const rule = this.rules.peek(next.id);
      if (rule) yield rule;
    }
  }

  private fresh(): void {
    if (!this.stale) return;
    this.byOp = new Map();
    this.known.clear();
    this.maxSeq = 0;
    for (const r of [...this.rules.peekAll()].sort((a, b) => a.seq - b.seq)) this.append(r);
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
    this.known.add(r.id);
    this.maxSeq = Math.max(this.maxSeq, r.seq);
  }
}
