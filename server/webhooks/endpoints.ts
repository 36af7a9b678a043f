import { toIso } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import { cutPage } from '../store/recordPage.js';
import type { MirroredCollection, Store } from '../store/store.js';
import type { WebhookEgress } from './egress.js';
import type {
  CreatedWebhookEndpoint,
  EndpointRecord,
  NewWebhookEndpoint,
  WebhookEndpoint,
  WebhookEndpointChange,
} from './model.js';

const MAX_ENDPOINTS_PER_APP = 20;

const notFound = (clientId: string, id: string) =>
  SimError.notFound('WEBHOOK_NOT_FOUND', `No webhook endpoint ${id} for app ${clientId}.`);

/** `http(s)` and absolute, or a 422 naming the field. */
function checkUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '')
    throw SimError.invalidField(['body', 'url'], 'Must be an absolute http or https URL', 'value_error', url);
}

/**
 * The webhook endpoints each app registered (control API, dashboard). Mirrored: whether an app
 * wants an event is asked when a task is submitted, so it must cost no round trip. The secret
 * is stored (deliveries are signed with it) but answered only by `create`.
 */
export class WebhookEndpoints {
  private readonly col: MirroredCollection<EndpointRecord>;
  private seq = 0;

  constructor(
    store: Store,
    private readonly random: Random,
    private readonly now: (clientId: string) => number,
    private readonly egress?: WebhookEgress,
  ) {
    this.col = store.mirrored<EndpointRecord>('webhookEndpoints');
  }

  async create(clientId: string, input: NewWebhookEndpoint): Promise<CreatedWebhookEndpoint> {
    await this.checkUrl(input.url);
    if (this.of(clientId).length >= MAX_ENDPOINTS_PER_APP)
      throw SimError.conflict('TOO_MANY_ENDPOINTS', `App ${clientId} has ${MAX_ENDPOINTS_PER_APP} endpoints`);
    const rec: EndpointRecord = {
      id: `whe_${this.random.hex(6)}`,
      name: input.name ?? null,
      client_id: clientId,
      url: input.url,
      scheme: input.scheme ?? 'current',
      payload: input.payload ?? 'docs',
      events: input.events ?? null,
      enabled: input.enabled ?? true,
      created_at: toIso(this.now(clientId)),
      secret: input.secret ?? `whsec_${this.random.hex(16)}`,
      seq: Math.max(this.seq, ...this.of(clientId).map((e) => e.seq)) + 1,
    };
    this.seq = rec.seq;
    await this.col.put(rec.id, rec);
    return { ...publicView(rec), secret: rec.secret };
  }

  /**
   * One page of the app's endpoints in creation order, after the one numbered `afterSeq`;
   * read through the `client_id` index, so it costs the app's endpoints (20 at most).
   */
  async page(
    clientId: string,
    q: { afterSeq?: number | undefined; limit: number },
  ): Promise<{ items: WebhookEndpoint[]; next?: number }> {
    const rows = (await this.col.findBy('client_id', clientId))
      .filter((e) => q.afterSeq === undefined || e.seq > q.afterSeq)
      .sort((a, b) => a.seq - b.seq);
    const page = cutPage(rows, q.limit, (e) => e.seq);
    return { ...page, items: page.items.map(publicView) };
  }

  /** The stored record (secret included) for signing; undefined when gone. */
  record(id: string): EndpointRecord | undefined {
    return this.col.peek(id);
  }

  get(clientId: string, id: string): EndpointRecord {
    const rec = this.col.peek(id);
    if (!rec || rec.client_id !== clientId) throw notFound(clientId, id);
    return rec;
  }

  async change(clientId: string, id: string, change: WebhookEndpointChange): Promise<WebhookEndpoint> {
    if (change.url !== undefined) await this.checkUrl(change.url);
    this.get(clientId, id);
    const next = await this.col.update(id, (cur) => {
      if (!cur || cur.client_id !== clientId) throw notFound(clientId, id);
      const rec: EndpointRecord = { ...cur, ...change, events: change.events ?? cur.events };
      return { next: rec, result: rec };
    });
    return publicView(next);
  }

  async remove(clientId: string, id: string): Promise<void> {
    this.get(clientId, id);
    await this.col.delete(id);
  }

  /** Enabled endpoints of the app that want `event`. */
  wanting(clientId: string, event: string): EndpointRecord[] {
    return this.of(clientId).filter(
      (e) => e.enabled && (e.events === null || e.events.includes(event as never)),
    );
  }

  /** Does the app have an enabled endpoint for any event starting with `prefix`? */
  wantsAny(clientId: string, prefix: string): boolean {
    return this.of(clientId).some(
      (e) => e.enabled && (e.events === null || e.events.some((ev) => ev.startsWith(prefix))),
    );
  }

  async removeApp(clientId: string): Promise<void> {
    await this.col.deleteBy('client_id', clientId);
  }

  /** A URL deliveries may go to, or a 422 naming why not (checked again at each delivery). */
  private async checkUrl(url: string): Promise<void> {
    checkUrl(url);
    const refused = await this.egress?.refusal(url);
    if (refused !== undefined)
      throw SimError.invalidField(['body', 'url'], `Not a webhook receiver: ${refused}`, 'value_error', url);
  }

  private of(clientId: string): EndpointRecord[] {
    const out: EndpointRecord[] = [];
    for (const e of this.col.peekAll()) if (e.client_id === clientId) out.push(e);
    return out.sort((a, b) => a.seq - b.seq);
  }
}

function publicView(r: EndpointRecord): WebhookEndpoint {
  const { secret: _s, seq: _q, ...rest } = r;
  // Endpoints stored before `payload` and `name` existed: the default form, no name.
  return { ...rest, name: r.name ?? null, payload: r.payload ?? 'docs' };
}
