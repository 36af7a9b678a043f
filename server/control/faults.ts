import type { Clock } from '../core/clock.js';
import { toIso } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import { cutPage } from '../store/recordPage.js';
import type { MirroredCollection, Store } from '../store/store.js';
import { FaultIndex } from './faultIndex.js';
import {
  type Fault,
  type FaultEffect,
  type FaultRule,
  type FaultSubject,
  matches,
  publicView,
  type StoredFault,
  type TranscriptionOutcome,
  WEBHOOK_DELIVERY,
  type WebhookFaultKind,
} from './faultModel.js';
import { checkFaultRule } from './faultRuleCheck.js';

// The types faultHook.ts and faultHeader.ts take from here.
export type { FaultAction, FaultEffect, FaultSubject } from './faultModel.js';

/**
 * Fault rules: which requests fail, and how. Rules are stored (collection `faults`), so they
 * and their `remaining` counts survive restarts. Each rule draws its `probability` from its
 * own fork of the seeded random source, so one rule's draws never shift another's and the
 * same seed gives the same sequence. No Express here: the HTTP layer (control/faultHook.ts)
 * asks `pick` for an effect and carries it out.
 */
export class FaultService {
  /** Mirrored: every request of the partner API looks for its rules. */
  private readonly rules: MirroredCollection<StoredFault>;
  /** Where a request looks for its rules: only those that could match it (faultIndex.ts). */
  private readonly index: FaultIndex<StoredFault>;
  private readonly streams = new Map<string, Random>();
  private readonly held = new Set<() => void>();

  constructor(
    store: Store,
    private readonly clock: Clock,
    private readonly random: Random,
    /** operationIds of the partner API, to refuse rules that could never fire. */
    private readonly operations: () => ReadonlySet<string>,
  ) {
    this.rules = store.mirrored<StoredFault>('faults');
    this.index = new FaultIndex(this.rules);
    // A rule gone (here or through another instance) takes its probability stream along.
    this.rules.onChange((id, rule) => {
      if (rule === undefined) this.streams.delete(id);
    });
  }

  async create(rule: FaultRule): Promise<Fault> {
    checkFaultRule(rule, this.operations);
    const id = `flt_${this.random.hex(4)}`;
    const seq = this.index.nextSeq();
    const stored: StoredFault = {
      ...rule,
      id,
      created_at: toIso(this.clock.now()),
      remaining: rule.times ?? null,
      hits: 0,
      seq,
    };
    await this.rules.put(id, stored);
    return publicView(stored);
  }

  /** How many rules are stored (exhausted ones included): 0 lets the hot path skip matching. */
  get size(): number {
    return this.rules.size;
  }

  /**
   * One page of the rules in creation order (with `clientId`, only those scoped to that app),
   * after the rule numbered `afterSeq`; `next` is the number to go on after. Rules live in
   * every instance's mirror, so the page is cut from memory.
   */
  page(q: { clientId?: string | undefined; afterSeq?: number | undefined; limit: number }): {
    items: Fault[];
    next?: number;
  } {
    const rules = this.ordered().filter(
      (r) =>
        (q.clientId === undefined || r.match?.client_id === q.clientId) &&
        (q.afterSeq === undefined || r.seq > q.afterSeq),
    );
    const page = cutPage(rules, q.limit, (r) => r.seq);
    return { ...page, items: page.items.map(publicView) };
  }

  async delete(id: string): Promise<void> {
    if (!(await this.rules.delete(id))) throw SimError.notFound('FAULT_NOT_FOUND', `No fault rule ${id}`);
  }

  /** Every rule, or with `clientId` only the rules scoped to that app. */
  async clear(clientId?: string): Promise<number> {
    if (clientId !== undefined) return this.rules.deleteBy('match.client_id', clientId);
    const ids = [...this.rules.peekAll()].map((r) => r.id);
    const gone = await Promise.all(ids.map((id) => this.rules.delete(id)));
    return gone.filter(Boolean).length;
  }

  /**
   * The rule that applies to this request, counted as applied; undefined when none does.
   * Outcome rules (`transcription_outcome`) are left to `outcomeFor`.
   */
  async pick(subject: FaultSubject): Promise<FaultEffect | undefined> {
    const rule = await this.take(
      this.index.candidates(subject),
      (r) => !r.transcription_outcome && matches(r, subject),
    );
    if (!rule) return undefined;
    return {
      id: rule.id,
      status: rule.status,
      body: rule.body,
      headers: rule.headers,
      delay_ms: rule.delay_ms,
      action: rule.action,
      message: rule.message,
    };
  }

  /**
   * Consulted by the transcription service when an app submits a task: the state the task
   * must end in (or stay in), when an outcome rule of that app (or of every app) applies.
   */
  async outcomeFor(
    clientId: string,
  ): Promise<{ status: TranscriptionOutcome; message?: string } | undefined> {
    const rule = await this.take(
      this.index.outcomes(clientId),
      (r) =>
        r.transcription_outcome !== undefined &&
        (r.match?.client_id === undefined || r.match.client_id === clientId),
    );
    if (!rule?.transcription_outcome) return undefined;
    return rule.message === undefined
      ? { status: rule.transcription_outcome }
      : { status: rule.transcription_outcome, message: rule.message };
  }

  /**
   * Consulted once per new webhook delivery (webhooks/deliveries.ts): what a `webhook_fault`
   * rule of that app (or of every app), optionally limited to `match.event`, does to it;
   * counted with `times` and drawn with `probability` as any rule.
   */
  async webhookFaultFor(
    clientId: string,
    event: string,
  ): Promise<{ id: string; kind: WebhookFaultKind; delay_ms?: number } | undefined> {
    const rule = await this.take(
      // Delivery rules match no request field: the index files them with the always-candidates.
      this.index.candidates({ operation: WEBHOOK_DELIVERY, client_id: clientId, path: '' }),
      (r) =>
        r.webhook_fault !== undefined &&
        (r.match?.client_id === undefined || r.match.client_id === clientId) &&
        (r.match?.event === undefined || r.match.event === event),
    );
    if (!rule?.webhook_fault) return undefined;
    return {
      id: rule.id,
      kind: rule.webhook_fault,
      ...(rule.delay_ms !== undefined ? { delay_ms: rule.delay_ms } : {}),
    };
  }

  /** Keep a hung response's way out, so shutdown can cut it instead of waiting. */
  hold(release: () => void): () => void {
    this.held.add(release);
    return () => this.held.delete(release);
  }

  /** Cut every hung response (server shutdown). */
  releaseHeld(): void {
    for (const release of [...this.held]) release();
    this.held.clear();
  }

  resetAll(): void {
    this.streams.clear();
  }

  async resetApp(clientId: string): Promise<void> {
    await this.clear(clientId);
  }

  private ordered(): StoredFault[] {
    return [...this.rules.peekAll()].sort((a, b) => a.seq - b.seq);
  }

  /**
   * First live rule of `rules` that `pred` accepts and that wins its probability draw, counted
   * as applied. The count is an atomic update that checks `remaining` again: the mirror may be
   * behind another instance's hits, and a rule with `times: 5` fires exactly 5 times in all.
   * One found used up meanwhile is passed over for the next candidate.
   */
  private async take(
    rules: Iterable<StoredFault>,
    pred: (r: StoredFault) => boolean,
  ): Promise<StoredFault | undefined> {
    for (const r of rules) {
      if (r.remaining === 0 || !pred(r)) continue;
      if (r.probability !== undefined && r.probability < 1 && this.stream(r.id).next() >= r.probability) {
        continue;
      }
      const counted = await this.rules.update(r.id, (cur) => {
        if (!cur || cur.remaining === 0) return { result: undefined };
        const remaining = cur.remaining === null || cur.remaining === undefined ? null : cur.remaining - 1;
        const next = { ...cur, remaining, hits: cur.hits + 1 };
        return { next, result: next };
      });
      if (counted) return counted;
    }
    return undefined;
  }

  private stream(id: string): Random {
    let s = this.streams.get(id);
    if (!s) {
      s = this.random.fork(`faults/${id}`);
      this.streams.set(id, s);
    }
    return s;
  }
}
