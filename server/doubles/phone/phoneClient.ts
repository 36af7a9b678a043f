import { errorCodeOf } from '../../client/http.js';
import type { components } from '../../spec/device-types.js';
import { unreachable } from './reachability.js';
import type { AudioFormat, Platform } from './types.js';

/**
 * A client of the device protocol (server/device.openapi.yaml): one virtual phone, fetch
 * only, so it runs in Node, a browser and a React Native engine. The doubles are its first
 * users; types come from the protocol document, never restated.
 */
type S = components['schemas'];
export type Phone = S['Phone'];
export type Connection = S['Connection'];
export type EventPage = S['EventPage'];
export type ScanAnswer = S['ScanAnswer'];
export type FileList = S['FileList'];
export type ConnectRequest = S['ConnectRequest'];

/**
 * A 4xx/5xx of the protocol or the cloud: `detail` is the error code (PHONE_NOT_FOUND, …),
 * `reason` the simulator's explanation. The message never names the simulator's internal
 * URLs (an app shows it to its user); `url` keeps the call for debugging.
 */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
  constructor(
    readonly status: number,
    readonly detail: string | undefined,
    readonly reason: string,
    readonly url: string,
  ) {
    super(`${status}${detail ? ` ${detail}` : ''}: ${reason}`);
  }
}

export const isProtocol = (e: unknown, ...status: number[]): e is ProtocolError =>
  e instanceof ProtocolError && status.includes(e.status);

export type Fetch = typeof fetch;

async function call(f: Fetch, url: string, init: RequestInit = {}): Promise<Response> {
  let r: Response;
  try {
    r = await f(url, init);
  } catch (e) {
    throw unreachable(url, e);
  }
  if (r.ok) return r;
  const text = await r.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const message = (body as { message?: unknown } | undefined)?.message;
  const code = errorCodeOf(body);
  const reason = typeof message === 'string' ? message : text.slice(0, 200) || r.statusText;
  throw new ProtocolError(r.status, code, reason, `${init.method ?? 'GET'} ${url}`);
}

/**
 * An answer whose body the caller does not need, read to the end anyway: a WebView logs a
 * response left unread as net::ERR_ABORTED.
 */
async function drained(r: Promise<Response>): Promise<void> {
  await (await r).arrayBuffer();
}

const json = (method: string, body?: unknown, token?: string): RequestInit => ({
  method,
  headers: {
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

/** Creates a phone (initSDK) at a device-protocol mount such as `http://host/__device`. */
export async function createPhone(
  f: Fetch,
  mount: string,
  userToken: string,
  options: { platform: Platform; timing: 'hardware' | 'instant' },
): Promise<PhoneClient> {
  const r = await call(f, `${mount}/phones`, json('POST', options, userToken));
  const phone = (await r.json()) as Phone;
  return new PhoneClient(f, `${mount}/phones/${phone.phone_id}`);
}

export class PhoneClient {
  constructor(
    private readonly f: Fetch,
    /** `{mount}/phones/{phone_id}` */
    readonly url: string,
  ) {}

  private async json<T>(path: string, init?: RequestInit): Promise<T> {
    return (await (await call(this.f, `${this.url}${path}`, init)).json()) as T;
  }

  state = () => this.json<Phone>('');
  scan = () => this.json<ScanAnswer>('/scan', json('POST', {}));
  stopScan = () => drained(call(this.f, `${this.url}/scan`, { method: 'DELETE' }));
  connect = (body: ConnectRequest) => this.json<Connection>('/connect', json('POST', body));
  disconnect = () => this.json<Phone>('/disconnect', json('POST'));
  depair = (clear: boolean) => this.json<S['DepairAnswer']>('/depair', json('POST', { clear }));
  recordings = (after: number) => this.json<FileList>(`/recordings?start_session_id=${after}`);
  events = (after: number) => this.json<EventPage>(`/events?after=${after}&limit=500`);
  forget = () => drained(call(this.f, this.url, { method: 'DELETE' }));

  async exportAudio(sessionId: number, format: AudioFormat, channels: number): Promise<Uint8Array> {
    const r = await call(
      this.f,
      `${this.url}/recordings/${sessionId}/audio?format=${format}&channels=${channels}`,
    );
    return new Uint8Array(await r.arrayBuffer());
  }
}
