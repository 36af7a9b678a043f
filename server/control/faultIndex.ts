import type { MirroredCollection } from '../store/store.js';
import { Needles } from './needles.js';

/** What the index needs of a stored rule. */
export interface IndexedRule {
  id: string;
  seq: number;
  operation: string;
  probability?: number | undefined;
  remaining?: number | null | undefined;
  transcription_outcome?: string | undefined;
  match?:
    | {
        client_id?: string | undefined;
        sn?: string | undefined;
        user_id?: string | undefined;
        part_number?: number | undefined;
        path_contains?: string | undefined;
      }
    | undefined;
}

/** What a request offers the index: the facts rules are narrowed by. */
export interface IndexSubject {
  operation: string;
  client_id?: string | undefined;
  sn?: string | undefined;
  user_id?: string | undefined;
  part_number?: number | undefined;
  path: string;
}

interface Entry {
  id: string;
  seq: number;
}

/** Key of the rules that apply to every app. */
const ANY_APP = '';

/** Rebuild once this many indexed rules are used up, and they are half of those indexed. */
const SPENT_REBUILD = 64;

/**
 * Rules of one operation scoped to one app (or to every app), filed under the one condition
 * that narrows each most: its serial, user, part number, or path fragment (found by one pass
 * over the path, needles.ts); those without any are always candidates. Outcome rules
 * (`transcription_outcome`) are kept apart: they change tasks, not answers.
 */
class Bucket {
  readonly always: Entry[] = [];
  readonly outcomes: Entry[] = [];
  private readonly bySn = new Map<string, Entry[]>();
  private readonly byUser = new Map<string, Entry[]>();
  private readonly byPart = new Map<number, Entry[]>();
  private readonly byPath = new Needles<Entry>();

  add(r: IndexedRule, e: Entry): void {
    const m = r.match;
    if (r.transcription_outcome !== undefined) this.outcomes.push(e);
    else if (m?.sn !== undefined) listOf(this.bySn, m.sn.toUpperCase()).push(e);
    else if (m?.user_id !== undefined) listOf(this.byUser, m.user_id).push(e);
    else if (m?.part_number !== undefined) listOf(this.byPart, m.part_number).push(e);
    else if (m?.path_contains) this.byPath.add(m.path_contains, e);
    else this.always.push(e);
  }

  /** Lists, each in creation order, holding every rule that may match `s`. */
  lists(s: IndexSubject, out: Entry[][]): void {
    const add = (l: Entry[] | undefined) => {
      if (l?.length) out.push(l);
    };
    add(this.always);
    if (s.sn !== undefined && this.bySn.size) add(this.bySn.get(s.sn.toUpperCase()));
    if (s.user_id !== undefined && this.byUser.size) add(this.byUser.get(s.user_id));
    if (s.part_number !== undefined && this.byPart.size) add(this.byPart.get(s.part_number));
    if (this.byPath.size) add(this.byPath.find(s.path).sort((a, b) => a.seq - b.seq));
  }
}

function listOf<K>(map: Map<K, Entry[]>, key: K): Entry[] {
  let l = map.get(key);
  if (!l) {
    l = [];
    map.set(key, l);
  }
  return l;
}

/**
 * Where a request looks for its fault rules: by operation, then by the app they are scoped to
 * (or every app), then by the condition that narrows them (Bucket). A request pays for the
 * rules that could match it, not for every rule: 10,000 rules of another app, on other paths
 * or serials, with `probability: 0` (never fire, never indexed) or used up cost it nothing.
 * The mirror stays the truth (counts change there); the index only says where to look. It
 * follows the mirror's changes (also those other instances made): a new rule after every
 * known one is filed at once; a deleted one, or many used up, make it rebuild on first use.
 */
export class FaultIndex<R extends IndexedRule> {
  private byOp = new Map<string, Map<string, Bucket>>();
  private maxSeq = 0;
  private stale = true;
  /** Rules filed since the last rebuild that are used up now. */
  private spent = 0;
  private filed = 0;

  private readonly known = new Set<string>();

  constructor(private readonly rules: MirroredCollection<R>) {
    rules.onChange((id, rule) => {
      if (rule === undefined) this.invalidate();
      else if (!this.known.has(id)) this.add(rule);
      else if (
        rule.remaining === 0 &&
        !this.stale &&
        ++this.spent >= SPENT_REBUILD &&
        this.spent * 2 >= this.filed
      )
        this.invalidate();
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

  /** A rule new to the mirror: filed when it comes after every known one, else a rebuild. */
  private add(rule: R): void {
    if (this.stale) return;
    if (rule.seq > this.maxSeq) this.file(rule);
    else this.invalidate();
  }

  /** Answer rules that may apply to `s` (its operation, its app or every app), in creation order. */
  candidates(s: IndexSubject): Generator<R> {
    const lists: Entry[][] = [];
    for (const b of this.buckets(s.operation, s.client_id)) b.lists(s, lists);
    return this.merged(lists);
  }

  /** Outcome rules of `createTranscription` for `clientId` or every app, in creation order. */
  outcomes(clientId: string): Generator<R> {
    return this.merged(this.buckets('createTranscription', clientId).map((b) => b.outcomes));
  }

  private buckets(operation: string, clientId: string | undefined): Bucket[] {
    this.fresh();
    const apps = this.byOp.get(operation);
    if (!apps) return [];
    const all = apps.get(ANY_APP);
    const own = clientId !== undefined && clientId !== ANY_APP ? apps.get(clientId) : undefined;
    return all && own ? [all, own] : all ? [all] : own ? [own] : [];
  }

  /** The rules of sorted `lists` (each rule in one), merged by creation order, as stored now. */
  private *merged(lists: Entry[][]): Generator<R> {
    const at = lists.map(() => 0);
    for (;;) {
      let best = -1;
      for (let k = 0; k < lists.length; k++) {
        if (at[k]! < lists[k]!.length && (best < 0 || lists[k]![at[k]!]!.seq < lists[best]![at[best]!]!.seq))
          best = k;
      }
      if (best < 0) return;
      const rule = this.rules.peek(lists[best]![at[best]!++]!.id);
      if (rule) yield rule;
    }
  }

  private fresh(): void {
    if (!this.stale) return;
    this.byOp = new Map();
    this.known.clear();
    this.maxSeq = 0;
    this.spent = 0;
    this.filed = 0;
    for (const r of [...this.rules.peekAll()].sort((a, b) => a.seq - b.seq)) this.file(r);
    this.stale = false;
  }

  private file(r: R): void {
    this.known.add(r.id);
    this.maxSeq = Math.max(this.maxSeq, r.seq);
    // Never fires (or never again): nothing to look at.
    if (r.probability === 0 || r.remaining === 0) return;
    let apps = this.byOp.get(r.operation);
    if (!apps) {
      apps = new Map();
      this.byOp.set(r.operation, apps);
    }
    const key = r.match?.client_id ?? ANY_APP;
    let bucket = apps.get(key);
    if (!bucket) {
      bucket = new Bucket();
      apps.set(key, bucket);
    }
    bucket.add(r, { id: r.id, seq: r.seq });
    this.filed++;
  }
}
