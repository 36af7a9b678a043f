import type { Clock } from '../core/clock.js';
import { toIso } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import type { components } from '../spec/admin-types.js';
import { cutPage } from '../store/recordPage.js';
import type { MirroredCollection, Store } from '../store/store.js';
import { FaultIndex } from './faultIndex.js';

export type FaultRule = components['schemas']['FaultRule'];
export type Fault = components['schemas']['Fault'];
export type FaultAction = NonNullable<FaultRule['action']>;
export type TranscriptionOutcome = NonNullable<FaultRule['transcription_outcome']>;
export type WebhookFaultKind = NonNullable<FaultRule['webhook_fault']>;
/** The pseudo-operation of rules that break webhook deliveries instead of a request. */
export const WEBHOOK_DELIVERY = 'webhookDelivery';

/** What a request offers to `match`: whatever the HTTP layer could tell about it. */
export interface FaultSubject {
  operation: string;
  client_id?: string | undefined;
  sn?: string | undefined;
  part_number?: number | undefined;
  user_id?: string | undefined;
  /** Path and query as received. */
  path: string;
}

/** The effect the HTTP layer carries out: a stored rule or an `X-Sim-Fault` header. */
export interface FaultEffect {
  /** Rule id, or `header` for the per-request header. */
  id: string;
  status?: number | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  delay_ms?: number | undefined;
  action?: FaultAction | undefined;
  message?: string | undefined;
}

interface StoredFault extends Fault {
  /** Creation order; the store does not keep insertion order across restarts. */
  seq: number;
}

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
    this.check(rule);
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

  /** What the schema cannot say: which combinations make sense. */
  private check(rule: FaultRule): void {
    const bad = (field: string, msg: string) => SimError.invalidField(['body', field], msg);
    if (rule.operation === WEBHOOK_DELIVERY || rule.webhook_fault !== undefined) {
      checkWebhookRule(rule, bad);
      return;
    }
    if (rule.match?.event !== undefined) throw bad('match', 'match.event is for webhookDelivery rules');
    if (!this.operations().has(rule.operation)) {
      const known = [...this.operations(), WEBHOOK_DELIVERY].sort().join(', ');
      throw bad('operation', `Unknown operationId ${rule.operation}; one of: ${known}`);
    }
    if (rule.transcription_outcome !== undefined) {
      if (rule.operation !== 'createTranscription')
        throw bad('transcription_outcome', 'Only for operation createTranscription');
      const others = (['status', 'body', 'headers', 'delay_ms', 'action'] as const).filter(
        (k) => rule[k] !== undefined,
      );
      if (others.length > 0)
        throw bad(others[0]!, 'A transcription_outcome rule changes the task, not the HTTP answer');
      return;
    }
    if (rule.action === 'wrong_etag' && rule.operation !== 'uploadPart')
      throw bad('action', 'wrong_etag applies to operation uploadPart only');
    // Only `malformed` keeps a status of its own; every action decides the body itself.
    const answer = (['status', 'body', 'headers'] as const).filter((k) => rule[k] !== undefined);
    const clash =
      rule.action === 'malformed' ? answer.filter((k) => k !== 'status') : rule.action ? answer : [];
    if (clash.length > 0) throw bad(clash[0]!, `action ${rule.action} answers without ${clash[0]}`);
    // Case-insensitive names are beyond a JSON Schema pattern: the spec says which, this checks.
    const framing = Object.keys(rule.headers ?? {}).find((h) => FRAMING_HEADERS.has(h.toLowerCase()));
    if (framing !== undefined)
      throw SimError.invalidField(
        ['body', 'headers', framing],
        'The simulator frames the answer itself; this header would break it',
        'value_error',
        framing,
      );
    if ((rule.body !== undefined || rule.headers !== undefined) && rule.status === undefined)
      throw bad(rule.body !== undefined ? 'body' : 'headers', 'Needs status');
    if (rule.status === undefined && rule.delay_ms === undefined && rule.action === undefined)
      throw bad('status', 'Give at least one of status, delay_ms, action or transcription_outcome');
  }
}

/** A `webhookDelivery` rule: a `webhook_fault`, `delay_ms` only with `late`, nothing of an answer. */
function checkWebhookRule(rule: FaultRule, bad: (field: string, msg: string) => SimError): void {
  if (rule.operation !== WEBHOOK_DELIVERY)
    throw bad('webhook_fault', `Only for operation ${WEBHOOK_DELIVERY}`);
  if (rule.webhook_fault === undefined)
    throw bad('webhook_fault', `Operation ${WEBHOOK_DELIVERY} needs webhook_fault`);
  const others = (['status', 'body', 'headers', 'action', 'transcription_outcome'] as const).filter(
    (k) => rule[k] !== undefined,
  );
  if (others.length > 0) throw bad(others[0]!, 'A webhook_fault rule changes deliveries, not an HTTP answer');
  if (rule.delay_ms !== undefined && rule.webhook_fault !== 'late')
    throw bad('delay_ms', 'Only with webhook_fault late');
  const m = rule.match ?? {};
  const foreign = (['sn', 'part_number', 'user_id', 'path_contains'] as const).find(
    (k) => m[k] !== undefined,
  );
  if (foreign !== undefined) throw bad('match', `match.${foreign} does not apply to deliveries`);
}

/** Headers that decide how an answer is framed on the wire: a rule setting them breaks it. */
const FRAMING_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);

function matches(r: FaultRule, s: FaultSubject): boolean {
  const m = r.match;
  if (!m) return true;
  return (
    (m.client_id === undefined || m.client_id === s.client_id) &&
    (m.sn === undefined || m.sn.toUpperCase() === s.sn?.toUpperCase()) &&
    (m.part_number === undefined || m.part_number === s.part_number) &&
    (m.user_id === undefined || m.user_id === s.user_id) &&
    (m.path_contains === undefined || s.path.includes(m.path_contains))
  );
}

function publicView(r: StoredFault): Fault {
  const { seq: _seq, ...rest } = r;
  return rest;
}
