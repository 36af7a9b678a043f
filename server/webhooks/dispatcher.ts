import { toIso } from '../core/clock.js';
import type { Deliveries } from './deliveries.js';
import type { WebhookEgress } from './egress.js';
import type { DeliveryRecord, EndpointRecord, OutboxItem, WebhookAttempt } from './model.js';
import { MAX_ATTEMPTS, RETRY_LADDER_MS } from './model.js';
import { postOnce, type SendResult } from './sender.js';
import { signatureHeaders } from './signature.js';

export interface DispatchOptions {
  /** Deadline of one POST, real time (connect, answer, body). */
  timeoutMs: number;
  /** POSTs in flight at once in this instance, over every app. */
  maxInFlight: number;
  realNow: () => number;
  /** This instance, named in its claims. */
  instanceId: string;
  userAgent: string;
  /** Checked again at each attempt, after resolving: DNS may have changed since registration. */
  egress?: WebhookEgress | undefined;
}

export interface DispatchDeps {
  deliveries: Deliveries;
  endpoint: (id: string) => EndpointRecord | undefined;
  now: (clientId: string) => number;
  onError: (e: unknown) => void;
}

/** `wrong_timestamp`: a stamp this far in the past, outside any usual replay window. */
const STALE_STAMP_S = 600;

/**
 * Works through the outbox: one worker per endpoint with something due (so a receiver that
 * hangs holds up only itself, and one endpoint's attempts go in order), at most `maxInFlight`
 * POSTs at once. An attempt is claimed with an atomic update before it is sent (a lease in
 * real time), so instances sharing a PostgreSQL store send each attempt once; one that dies
 * mid-attempt leaves a lease that runs out, and the attempt is made again. Nothing here runs
 * on a request's path: passes start from the housekeeper's tick, clock moves and new events.
 */
export class Dispatcher {
  private readonly workers = new Map<string, Promise<void>>();
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly aborts = new Set<AbortController>();
  private stopped = false;

  constructor(
    private readonly deps: DispatchDeps,
    private readonly opts: DispatchOptions,
  ) {}

  /** Start a worker for each endpoint with an attempt due now; resolves once they started. */
  async pass(): Promise<number> {
    if (this.stopped) return 0;
    const started = new Set<string>();
    let after: string | undefined;
    for (;;) {
      const page = await this.deps.deliveries.outbox.page(after, 500);
      for (const [, item] of page)
        if (!this.workers.has(item.endpoint_id) && !started.has(item.endpoint_id) && this.due(item))
          started.add(item.endpoint_id);
      if (page.length < 500) break;
      after = page.at(-1)![0];
    }
    for (const ep of started) this.startWorker(ep);
    return started.size;
  }

  /** Every worker finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.workers.size > 0) await Promise.all([...this.workers.values()]);
  }

  /** Cut POSTs in flight (their leases run out; the attempts are made again after a restart). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const a of this.aborts) a.abort();
    await this.idle();
  }

  private due(item: OutboxItem): boolean {
    return item.due_ms <= this.deps.now(item.client_id) && (item.claim_until ?? 0) <= this.opts.realNow();
  }

  private startWorker(endpointId: string): void {
    const run = this.work(endpointId)
      .catch(this.deps.onError)
      .finally(() => this.workers.delete(endpointId));
    this.workers.set(endpointId, run);
  }

  /** The endpoint's due attempts, earliest first, until none is due. */
  private async work(endpointId: string): Promise<void> {
    while (!this.stopped) {
      const items = (await this.deps.deliveries.outbox.findBy('endpoint_id', endpointId)).filter((i) =>
        this.due(i),
      );
      if (items.length === 0) return;
      items.sort((a, b) => a.due_ms - b.due_ms || a.seq - b.seq);
      await this.attempt(items[0]!);
    }
  }

  private async attempt(item: OutboxItem): Promise<void> {
    const { outbox, log } = this.deps.deliveries;
    const claimed = await outbox.update(item.id, (cur) => {
      if (!cur || cur.attempt !== item.attempt || !this.due(cur)) return { result: undefined };
      const next = {
        ...cur,
        claim_until: this.opts.realNow() + this.opts.timeoutMs + 30_000,
        claim_by: this.opts.instanceId,
      };
      return { next, result: next };
    });
    if (!claimed) return;
    const rec = await log.get(item.id);
    const ep = this.deps.endpoint(claimed.endpoint_id);
    if (!rec || !ep) {
      // The app or endpoint went: nothing left to deliver to.
      await outbox.delete(item.id);
      if (rec) await this.settle(rec, claimed, undefined, 'failed');
      return;
    }
    const at = this.deps.now(rec.client_id);
    const { headers, fault } = this.headersFor(rec, ep);
    const result = await this.send(ep.url, headers, rec.request_body);
    if (result === undefined) return; // stopped mid-attempt: the lease runs out, the attempt is made again
    // The whole answer within the deadline (docs/webhooks.md): a 2xx whose body stalls is a failure.
    const ok =
      result.status !== undefined &&
      result.status >= 200 &&
      result.status < 300 &&
      result.error === undefined;
    const attempt: WebhookAttempt = {
      attempt: claimed.attempt,
      at: toIso(at),
      request_headers: headers,
      ...(result.status !== undefined ? { response_status: result.status } : {}),
      ...(result.excerpt !== undefined ? { response_excerpt: result.excerpt } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}),
      duration_ms: result.durationMs,
      outcome: ok ? 'success' : 'failure',
      ...(fault ? { fault } : {}),
    };
    const last = claimed.attempt >= MAX_ATTEMPTS;
    const nextMs = ok || last ? null : at + RETRY_LADDER_MS[claimed.attempt - 1]!;
    await this.settle(rec, claimed, attempt, ok ? 'succeeded' : last ? 'failed' : 'pending', nextMs);
    if (nextMs === null) await outbox.delete(item.id);
    else
      await outbox.update(item.id, (cur) =>
        cur && cur.claim_by === this.opts.instanceId && cur.attempt === claimed.attempt
          ? {
              next: {
                id: cur.id,
                client_id: cur.client_id,
                endpoint_id: cur.endpoint_id,
                seq: cur.seq,
                attempt: cur.attempt + 1,
                due_ms: nextMs,
              },
              result: undefined,
            }
          : { result: undefined },
      );
  }

  private async settle(
    rec: DeliveryRecord,
    _item: OutboxItem,
    attempt: WebhookAttempt | undefined,
    status: DeliveryRecord['status'],
    nextMs: number | null = null,
  ): Promise<void> {
    await this.deps.deliveries.log.update(rec.id, (cur) => {
      if (!cur) return { result: undefined };
      return {
        next: {
          ...cur,
          attempts: attempt ? [...cur.attempts, attempt] : cur.attempts,
          status,
          next_ms: nextMs,
          next_attempt_at: nextMs === null ? null : toIso(nextMs),
        },
        result: undefined,
      };
    });
  }

  private headersFor(
    rec: DeliveryRecord,
    ep: EndpointRecord,
  ): { headers: Record<string, string>; fault?: string } {
    const fault = rec.fault === 'wrong_signature' || rec.fault === 'wrong_timestamp' ? rec.fault : undefined;
    const nowS = Math.floor(this.opts.realNow() / 1000) - (fault === 'wrong_timestamp' ? STALE_STAMP_S : 0);
    const secret = fault === 'wrong_signature' ? `${ep.secret}-not-the-secret` : ep.secret;
    return {
      headers: {
        'content-type': 'application/json',
        'user-agent': this.opts.userAgent,
        ...signatureHeaders(ep.scheme, secret, rec.request_body, nowS),
      },
      ...(fault ? { fault } : {}),
    };
  }

  /** One POST inside the global bound; undefined when stopped meanwhile. */
  private async send(
    url: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<SendResult | undefined> {
    if (this.inFlight >= this.opts.maxInFlight) await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight++;
    const abort = new AbortController();
    this.aborts.add(abort);
    try {
      const guard = this.opts.egress?.forDelivery(url);
      if (guard && 'refused' in guard) return { error: `refused: ${guard.refused}`, durationMs: 0 };
      const result = await postOnce(url, headers, body, this.opts.timeoutMs, abort.signal, guard?.lookup);
      return abort.signal.aborted ? undefined : result;
    } finally {
      this.aborts.delete(abort);
      this.inFlight--;
      this.waiting.shift()?.();
    }
  }
}
