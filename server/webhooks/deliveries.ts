import { createHash } from 'node:crypto';
import { toIso } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import { AppBound } from '../store/appBound.js';
import { cutPage } from '../store/recordPage.js';
import type { Collection, Store } from '../store/store.js';
import {
  type DeliveryRecord,
  type EndpointRecord,
  legacyName,
  type OutboxItem,
  type WebhookDelivery,
  type WebhookFault,
} from './model.js';
import { shapePayload } from './payloadForm.js';

/** What a delivery fault rule decided for a new delivery (control/faults.ts webhookFaultFor). */
export interface PickedFault {
  id: string;
  kind: WebhookFault;
  delay_ms?: number;
}

export interface DeliveryDeps {
  store: Store;
  random: Random;
  /** The app's simulated clock. */
  now: (clientId: string) => number;
  /** Real time, for ordering deliveries created at the same simulated instant. */
  realNow: () => number;
  faultFor: (clientId: string, event: string) => Promise<PickedFault | undefined>;
  /** Settled deliveries each app's log keeps, the newest (`--keep-per-app`); default 500. */
  keepPerApp?: number | undefined;
}

/** Where a page of the delivery log ends: the last delivery shown (creation ms, then id). */
export type DeliveryPosition = { ms: number; id: string };

/** Deliveries each app's log keeps when no `--keep-per-app` is given (tests, the library). */
const LOG_PER_APP = 500;
/** `late` without `delay_ms`: a minute on the app's clock. */
const LATE_DEFAULT_MS = 60_000;
/** `out_of_order`: sent after the endpoint's next event, or this long after anyway. */
const HOLD_MAX_MS = 300_000;

const notFound = (id: string) => SimError.notFound('DELIVERY_NOT_FOUND', `No webhook delivery ${id}.`);

/** A stable id from parts: the same event (or delivery of it) always gets the same one. */
export const stableId = (prefix: string, ...parts: string[]): string =>
  `${prefix}_${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 24)}`;

/**
 * The delivery log and the outbox of due attempts (model.ts). A delivery is created with its
 * body fixed (so every attempt, duplicate and redelivery sends the same bytes) and its first
 * attempt due now on the app's clock; delivery fault rules shape it here, once.
 */
export class Deliveries {
  readonly log: Collection<DeliveryRecord>;
  readonly outbox: Collection<OutboxItem>;
  /**
   * Each app's log keeps its newest deliveries; older ones leave on the housekeeper's tick,
   * with their due attempts. Trimming there, not in `create`, keeps the
   * request path free of a read of the app's whole log.
   */
  readonly bound: AppBound<DeliveryRecord>;
  private counter = 0;

  constructor(private readonly deps: DeliveryDeps) {
    this.log = deps.store.collection<DeliveryRecord>('webhookDeliveries');
    this.outbox = deps.store.collection<OutboxItem>('webhookOutbox');
    this.bound = new AppBound({
      name: 'webhook delivery log',
      collection: this.log,
      keep: deps.keepPerApp ?? LOG_PER_APP,
      order: 'created_ms',
      // A pending one goes too, with its due attempt: an endpoint that is down for good would
      // otherwise keep every delivery made to it (retries run for a day).
      drop: async (id) => {
        await this.outbox.delete(id);
        return this.log.delete(id);
      },
    });
  }

  /**
   * The event for one endpoint, unless it was created already (the event id and endpoint make
   * the delivery id, so noticing the same event twice sends it once).
   */
  async create(
    ep: EndpointRecord,
    event: string,
    eventId: string,
    data: unknown,
  ): Promise<DeliveryRecord | undefined> {
    const id = stableId('dlv', eventId, ep.id);
    if (await this.log.get(id)) return undefined;
    const now = this.deps.now(ep.client_id);
    const name = ep.scheme === 'legacy' ? legacyName(event) : event;
    const body = JSON.stringify({
      id: eventId,
      event: name,
      created_at: toIso(now),
      data: shapePayload(ep.payload, event, data),
    });
    const fault = await this.deps.faultFor(ep.client_id, event);
    const rec = this.record(id, ep, name, eventId, body, now, fault);
    if (!(await this.log.insert(id, rec))) return undefined;
    if (fault?.kind === 'drop') return rec;
    const item = this.item(rec, fault);
    if (!item.held) await this.releaseHeld(ep.id, item);
    await this.outbox.put(id, item);
    if (fault?.kind === 'duplicate') await this.again(rec, 'duplicate');
    this.bound.touch(ep.client_id);
    return rec;
  }

  /** The same event again to the same endpoint, with its own attempts: redeliver, or a duplicate. */
  async again(of: DeliveryRecord, why: 'duplicate' | 'redeliver'): Promise<DeliveryRecord> {
    const now = this.deps.now(of.client_id);
    const rec: DeliveryRecord = {
      ...this.record(
        `dlv_${this.deps.random.hex(10)}`,
        undefined,
        of.event,
        of.event_id,
        of.request_body,
        now,
      ),
      client_id: of.client_id,
      endpoint_id: of.endpoint_id,
      url: of.url,
      redelivery_of: of.id,
      ...(why === 'duplicate'
        ? { fault: 'duplicate', ...(of.fault_id ? { fault_id: of.fault_id } : {}) }
        : {}),
    };
    await this.log.put(rec.id, rec);
    await this.outbox.put(rec.id, this.item(rec, undefined));
    this.bound.touch(rec.client_id);
    return rec;
  }

  async get(clientId: string, id: string): Promise<DeliveryRecord> {
    const rec = await this.log.get(id);
    if (!rec || rec.client_id !== clientId) throw notFound(id);
    return rec;
  }

  /**
   * One page of the app's deliveries (of `event`, when given), newest first: by creation on
   * the app's clock, then by id, after the position `before`. Read through the `client_id`
   * index, so it costs the app's log (kept to LOG_PER_APP), never every app's.
   */
  async page(
    clientId: string,
    q: { event?: string | undefined; before?: DeliveryPosition | undefined; limit: number },
  ): Promise<{ items: WebhookDelivery[]; next?: DeliveryPosition }> {
    const b = q.before;
    const rows = (await this.log.findBy('client_id', clientId))
      .filter(
        (d) =>
          (q.event === undefined || d.event === q.event) &&
          (b === undefined || d.created_ms < b.ms || (d.created_ms === b.ms && d.id < b.id)),
      )
      .sort((x, y) => y.created_ms - x.created_ms || (y.id < x.id ? -1 : y.id > x.id ? 1 : 0));
    const page = cutPage(rows, q.limit, (d): DeliveryPosition => ({ ms: d.created_ms, id: d.id }));
    return { ...page, items: page.items.map(publicDelivery) };
  }

  async resetApp(clientId: string): Promise<void> {
    await this.outbox.deleteBy('client_id', clientId);
    await this.log.deleteBy('client_id', clientId);
  }

  /** Creation order across instances: real time first, then a local counter. */
  nextSeq(): number {
    this.counter = (this.counter + 1) % 1000;
    return this.deps.realNow() * 1000 + this.counter;
  }

  private record(
    id: string,
    ep: EndpointRecord | undefined,
    event: string,
    eventId: string,
    body: string,
    now: number,
    fault?: PickedFault,
  ): DeliveryRecord {
    const dropped = fault?.kind === 'drop';
    const due = now + (fault?.kind === 'late' ? (fault.delay_ms ?? LATE_DEFAULT_MS) : 0);
    const next = dropped ? null : fault?.kind === 'out_of_order' ? now + HOLD_MAX_MS : due;
    return {
      id,
      client_id: ep?.client_id ?? '',
      endpoint_id: ep?.id ?? '',
      url: ep?.url ?? '',
      event,
      event_id: eventId,
      status: dropped ? 'dropped' : 'pending',
      request_body: body,
      attempts: [],
      created_at: toIso(now),
      created_ms: now,
      next_ms: next,
      next_attempt_at: next === null ? null : toIso(next),
      ...(fault ? { fault: fault.kind, fault_id: fault.id } : {}),
    };
  }

  private item(rec: DeliveryRecord, fault: PickedFault | undefined): OutboxItem {
    return {
      id: rec.id,
      client_id: rec.client_id,
      endpoint_id: rec.endpoint_id,
      attempt: 1,
      due_ms: rec.next_ms ?? rec.created_ms,
      seq: this.nextSeq(),
      ...(fault?.kind === 'out_of_order' ? { held: true } : {}),
    };
  }

  /** `out_of_order` deliveries waiting on this endpoint go right after `next`. */
  private async releaseHeld(endpointId: string, next: OutboxItem): Promise<void> {
    const waiting = (await this.outbox.findBy('endpoint_id', endpointId)).filter((i) => i.held);
    for (const h of waiting) {
      const at = next.due_ms;
      await this.outbox.update(h.id, (cur) =>
        cur?.held
          ? { next: { ...cur, held: false, due_ms: at, seq: next.seq + 0.5 }, result: undefined }
          : { result: undefined },
      );
      await this.log.update(h.id, (cur) =>
        cur
          ? { next: { ...cur, next_ms: at, next_attempt_at: toIso(at) }, result: undefined }
          : { result: undefined },
      );
    }
  }

  /** Keep the newest LOG_PER_APP deliveries of the app (settled ones go first). */
}

export function publicDelivery(r: DeliveryRecord): WebhookDelivery {
  const { created_ms: _c, next_ms: _n, ...rest } = r;
  return rest;
}
