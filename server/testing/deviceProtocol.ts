import { http } from './http.js';

/**
 * A partner's device-lock recovery written over the device protocol (device.openapi.yaml),
 * from the native template's algorithm: query → stop on true → de-duplicate → at most 5 ids ×
 * handshake → depair → rescan → reconnect → cloud bind. Events are read by polling and the
 * app's clock moved to when they are due, so it runs at once on `hardware` timing too.
 */
export interface RecoveryWorld {
  base: string; // e.g. http://127.0.0.1:PORT
  api: string; // partner API base of the user's region
  admin: string;
  userToken: string;
  clientId: string;
  platform: 'ios' | 'android';
}

type Ev = { seq: number; name: string; data: Record<string, unknown> };

export class PhoneClient {
  cursor = 0;
  constructor(
    readonly w: RecoveryWorld,
    readonly id: string,
  ) {}

  static async create(w: RecoveryWorld, prefix = '/__device'): Promise<PhoneClient> {
    const r = await http('POST', `${w.base}${prefix}/phones`, {
      headers: { authorization: `Bearer ${w.userToken}` },
      json: { platform: w.platform },
    });
    if (r.status !== 201) throw new Error(`createPhone ${r.status} ${r.text}`);
    return new PhoneClient(w, r.body.phone_id);
  }

  call(method: string, path: string, json?: unknown) {
    return http(
      method,
      `${this.w.base}/__device/phones/${this.id}${path}`,
      json === undefined ? {} : { json },
    );
  }

  /** Events until `done` says stop, moving the app's clock to each next due event. */
  async until(done: (e: Ev) => boolean): Promise<Ev> {
    for (let i = 0; i < 50; i++) {
      const page = (await this.call('GET', `/events?after=${this.cursor}`)).body;
      this.cursor = page.cursor;
      for (const e of page.events as Ev[]) if (done(e)) return e;
      if (!page.next_at) throw new Error('no more events');
      const ms = Date.parse(page.next_at) - Date.parse(page.now);
      await http('POST', `${this.w.admin}/clock`, {
        json: { client_id: this.w.clientId, advance_ms: Math.max(1, ms) },
      });
    }
    throw new Error('event never came');
  }

  async scanFor(sn: string): Promise<boolean> {
    const r = await this.call('POST', '/scan', { window_ms: 2000 });
    return r.body.devices.some((d: { serialNumber: string }) => d.serialNumber === sn);
  }

  /** Handshake; true when `bind {status: 0}` comes, false on a refusal (connectState 0/2/-1). */
  async handshake(sn: string, pinned?: string): Promise<boolean> {
    const r = await this.call('POST', '/connect', {
      serialNumber: sn,
      ...(pinned ? { pinned_id: pinned, clear: true } : {}),
    });
    if (r.status !== 202) throw new Error(`connect ${r.status} ${r.text}`);
    const e = await this.until((x) => x.name === 'bind' || (x.name === 'connectState' && x.data.state !== 1));
    if (e.name === 'bind') return e.data.status === 0;
    await this.call('POST', '/disconnect');
    return false;
  }
}

/** The recovery as a partner app would run it; the message it ends with. */
export async function recover(w: RecoveryWorld, sn: string, type: string): Promise<string> {
  const phone = await PhoneClient.create(w);
  if (!(await phone.scanFor(sn))) return 'device not found by the scan';
  const first = await phone.call('POST', '/connect', { serialNumber: sn });
  const ok = await phone.until((x) => x.name === 'bind' || (x.name === 'connectState' && x.data.state !== 1));
  if (ok.name === 'bind') return bindCloud(w, sn, type, 'connected without recovery');
  if (first.body.reason === 'RECORDING_NOW') return 'the device is recording; stop it, then connect';
  await phone.call('POST', '/disconnect');
  const q = await http('GET', `${w.api}/open/partner/sdk/binding?type=${type}&sn=${sn}`, {
    headers: { authorization: `Bearer ${w.userToken}` },
  });
  if (q.status !== 200) return 'could not query the cloud binding state';
  if (q.body.is_bind === true) return 'bound to another account; that owner must unbind it first';
  const ids = [...new Set(q.body.bind_history as string[])];
  if (ids.length === 0) return 'no bind history';
  for (const id of ids.slice(0, 5)) {
    if (!(await phone.handshake(sn, id))) continue;
    await phone.call('POST', '/depair', { clear: false });
    await phone.until((x) => x.name === 'depair');
    // The recorder drops the link after a depair: wait for it, as the app's disconnect would.
    await phone.until((x) => x.name === 'connectState' && x.data.state === 0);
    if (!(await phone.scanFor(sn))) return 'device not found after depair';
    if (!(await phone.handshake(sn))) return 'reconnect as the current user failed';
    return bindCloud(w, sn, type, 'unlocked: reconnected as the current user and bound in the cloud');
  }
  return 'none of the previous accounts matched the device lock';
}

async function bindCloud(w: RecoveryWorld, sn: string, type: string, message: string): Promise<string> {
  const b = await http('POST', `${w.api}/open/partner/sdk/bind`, {
    headers: { authorization: `Bearer ${w.userToken}` },
    json: { type, sn },
  });
  return b.status === 200 ? message : `cloud bind failed: ${b.status} ${b.text}`;
}
