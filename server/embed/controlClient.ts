import type { components } from '../spec/admin-types.js';
import { adminSpec } from '../spec/openapi.js';
import type {
  ControlArgs,
  ControlBody,
  ControlInput,
  ControlOperationId,
  ControlQuery,
  ControlResult,
} from './controlTypes.js';

type Schemas = components['schemas'];

/** The listings whose answer is an array of records, which `all` reads page after page. */
type ListingId =
  | 'listApps'
  | 'listDevices'
  | 'listRecorders'
  | 'listPhones'
  | 'listTranscriptions'
  | 'listTranscripts'
  | 'listFaults'
  | 'listRequests'
  | 'listWebhookEndpoints'
  | 'listWebhookDeliveries';
type ListingItem<K extends ListingId> = ControlResult<K> extends (infer T)[] ? T : never;

/** A control API call answered with a non-2xx status; names the call, never a credential. */
export class ControlError extends Error {
  constructor(
    readonly operationId: ControlOperationId,
    readonly status: number,
    readonly body: string,
    message: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

export interface ControlClientOptions {
  /** Sent as `Authorization: Bearer <token>` when the simulator runs with `--admin-token`. */
  adminToken?: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
}

function queryString(query: Record<string, unknown> | undefined): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.append(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * A typed client for the simulator's control API (`/__admin`). Every operation is reachable by
 * its operationId through `call`, typed from server/admin.openapi.yaml's generated types; the
 * method and path come from the same document at run time, so a route never gets restated.
 * The named methods are shorthands for the calls test set-ups make most.
 */
export class ControlClient {
  private readonly fetch: typeof fetch;

  /** `admin` is the control API base, e.g. http://127.0.0.1:4010/__admin */
  constructor(
    readonly admin: string,
    private readonly options: ControlClientOptions = {},
  ) {
    this.admin = admin.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Call any control operation; resolves with its success body, rejects with ControlError. */
  async call<K extends ControlOperationId>(
    operationId: K,
    ...[input]: ControlArgs<K>
  ): Promise<ControlResult<K>> {
    const { method, url, query, body } = this.request(operationId, input);
    return (await this.send(operationId, method, `${url}${queryString(query)}`, body))
      .body as ControlResult<K>;
  }

  /**
   * Every record of a listing, however many pages it takes: each page's `Link: <…>;
   * rel="next"` gives the cursor of the next (pages of the listing's default `limit`). Takes
   * what `call` takes (the app of the webhook listings as `path`, filters as `query`).
   */
  async all<K extends ListingId>(operationId: K, ...[input]: ControlArgs<K>): Promise<ListingItem<K>[]> {
    const { url, query } = this.request(operationId, input);
    const out: ListingItem<K>[] = [];
    let cursor: string | null | undefined;
    do {
      const q = { ...query, cursor: cursor ?? undefined };
      const page = await this.send(operationId, 'GET', `${url}${queryString(q)}`, undefined);
      out.push(...(page.body as ListingItem<K>[]));
      const next = /<([^>]+)>;\s*rel="next"/.exec(page.link ?? '')?.[1];
      cursor = next === undefined ? undefined : new URL(next).searchParams.get('cursor');
    } while (cursor);
    return out;
  }

  /** The method, path (parameters filled in), query and body of a call, from the document. */
  private request<K extends ControlOperationId>(operationId: K, input: ControlInput<K> | undefined) {
    const op = adminSpec().get(operationId);
    const { path, query, body } = (input ?? {}) as ControlInput<K> & {
      path?: Record<string, string>;
      query?: Record<string, unknown>;
      body?: unknown;
    };
    const url = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
      const value = path?.[name];
      if (value === undefined) throw new TypeError(`${operationId}: path parameter ${name} is missing`);
      return encodeURIComponent(value);
    });
    return { method: op.method.toUpperCase(), url, query, body };
  }

  private async send(
    operationId: ControlOperationId,
    method: string,
    where: string,
    body: unknown,
  ): Promise<{ body: unknown; link: string | null }> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.adminToken) headers.authorization = `Bearer ${this.options.adminToken}`;
    const res = await this.fetch(`${this.admin}${where}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) {
      const message = `control API ${method} ${where} (${operationId}) answered ${res.status}: ${text.slice(0, 300)}`;
      throw new ControlError(operationId, res.status, text, message);
    }
    const link = res.headers.get('link');
    if (!text) return { body: undefined, link };
    const json = /\bjson\b/.test(res.headers.get('content-type') ?? '');
    return { body: json ? JSON.parse(text) : text, link };
  }

  /** Back to the fixtures (no body), or only one app's uploads, tasks, faults and journal. */
  reset(clientId?: string): Promise<undefined> {
    return this.call('resetState', clientId === undefined ? {} : { body: { client_id: clientId } });
  }

  /** Every app (all pages); `call('listApps', …)` reads one page. */
  listApps(): Promise<Schemas['PartnerApp'][]> {
    return this.all('listApps');
  }

  /** A partner app; omitted credentials are generated. */
  createApp(app: ControlBody<'createPartnerApp'>): Promise<Schemas['PartnerApp']> {
    return this.call('createPartnerApp', { body: app });
  }

  /** Remove an app and everything it owns. */
  deleteApp(clientId: string): Promise<undefined> {
    return this.call('deletePartnerApp', { path: { client_id: clientId } });
  }

  /** The instance clock, or one app's clock. */
  clock(clientId?: string): Promise<Schemas['ClockState']> {
    return this.call('getClock', { query: clientId === undefined ? {} : { client_id: clientId } });
  }

  setClock(change: Schemas['ClockChange']): Promise<Schemas['ClockState']> {
    return this.call('setClock', { body: change });
  }

  /** Move the instance clock, or only the clock of app `clientId`, by `ms`. */
  advanceClock(ms: number, clientId?: string): Promise<Schemas['ClockState']> {
    const only = clientId === undefined ? {} : { client_id: clientId };
    return this.setClock({ advance_ms: Math.round(ms), ...only });
  }

  /** Every device (all pages). */
  listDevices(): Promise<Schemas['Device'][]> {
    return this.all('listDevices');
  }

  getDevice(sn: string): Promise<Schemas['Device']> {
    return this.call('getDevice', { path: { sn } });
  }

  /** Create or overwrite a device's binding state. */
  putDevice(sn: string, state: Schemas['DeviceState']): Promise<Schemas['Device']> {
    return this.call('putDevice', { path: { sn }, body: state });
  }

  deleteDevice(sn: string): Promise<undefined> {
    return this.call('deleteDevice', { path: { sn } });
  }

  /** Every transcription task (all pages). */
  listTranscriptions(): Promise<ControlResult<'listTranscriptions'>> {
    return this.all('listTranscriptions');
  }

  /** Pin a transcription task's status (e.g. FAILURE with a message). */
  forceTranscription(
    id: string,
    force: Schemas['ForceTranscriptionRequest'],
  ): Promise<ControlResult<'forceTranscription'>> {
    return this.call('forceTranscription', { path: { transcription_id: id }, body: force });
  }

  /** The transcript returned for audio with this MD5. */
  putTranscript(
    md5: string,
    transcript: ControlBody<'putTranscript'>,
  ): Promise<ControlResult<'putTranscript'>> {
    return this.call('putTranscript', { path: { md5 }, body: transcript });
  }

  addFault(rule: Schemas['FaultRule']): Promise<Schemas['Fault']> {
    return this.call('createFault', { body: rule });
  }

  deleteFault(id: string): Promise<undefined> {
    return this.call('deleteFault', { path: { id } });
  }

  clearFaults(clientId?: string): Promise<undefined> {
    return this.call('clearFaults', { query: clientId === undefined ? {} : { client_id: clientId } });
  }

  /** The request journal, filtered as the query says. */
  requests(query: ControlQuery<'listRequests'> = {}): Promise<Schemas['JournalEntry'][]> {
    return this.call('listRequests', { query });
  }

  clearRequests(clientId?: string): Promise<undefined> {
    return this.call('clearRequests', { query: clientId === undefined ? {} : { client_id: clientId } });
  }

  health(): Promise<Schemas['Health']> {
    return this.call('getHealth');
  }

  /** What the instance's HTTPS proxy serves, and its CA certificate (`--https`). */
  proxy(): Promise<Schemas['ProxyInfo']> {
    return this.call('getProxy');
  }
}
