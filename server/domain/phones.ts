import type { Clock } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import type { Random } from '../core/random.js';
import type { components } from '../spec/device-types.js';
import { type Page, type PageQuery, recordPage } from '../store/recordPage.js';
import type { Collection, Store } from '../store/store.js';
import type { Region } from './apps.js';
import type { DeviceEvents, DisconnectReason } from './deviceEvents.js';
import type { DeviceRegistry } from './devices.js';
import { makeRoomForPhone } from './phoneCap.js';
import {
  closeConnection,
  depairedPhone,
  depairedRecorder,
  offeredToken,
  openConnection,
  reachRecorder,
  resolveSerial,
} from './phoneConnection.js';
import { phoneNotFound } from './phoneErrors.js';
import { eventPage } from './phoneEventPage.js';
import {
  type ConnectionView,
  dropPending,
  type PhoneRecord,
  type PhoneView,
  phoneView,
  requireConnected,
  schedule,
  uuidFor,
} from './phoneModel.js';
import {
  arranged,
  type PhoneArrangement,
  type PhoneSummary,
  phoneSummary,
  requireRadio,
} from './phoneRadio.js';
import { scannedDevices, scheduleScan } from './phoneScan.js';
import { handshakeTokenOf, type RecorderRecord } from './recorderModel.js';
import type { RecorderRegistry } from './recorders.js';
import type { TokenService } from './tokens.js';

type Dev = components['schemas'];
const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The phones of the device protocol (device.openapi.yaml): SDK sessions of one app's user,
 * each with what its scan saw, its connection and its queue of bridge events on the app's
 * clock. The recorders they talk to are the shared RecorderRegistry.
 */
export class PhoneService implements Lifecycle {
  private readonly phones: Collection<PhoneRecord>;

  constructor(
    store: Store,
    private readonly random: Random,
    private readonly clockOf: (clientId: string) => Clock,
    private readonly tokens: TokenService,
    private readonly recorders: RecorderRegistry,
    private readonly devices: DeviceRegistry,
    private readonly events: DeviceEvents,
    /** `--phones-per-app` (phoneCap.ts); 0: no cap. */
    private readonly phonesPerApp = 0,
  ) {
    this.phones = store.collection<PhoneRecord>('phones');
  }

  /** initSDK: the token checked in `region` as the SDK's key fetch would be. */
  async create(token: string, region: Region, opts: Dev['PhoneOptions']): Promise<PhoneView> {
    const claims = this.tokens.verify(token, region, 'user');
    const now = this.clockOf(claims.client_id).now();
    await makeRoomForPhone(this.phones, claims.client_id, this.phonesPerApp, now);
    const p: PhoneRecord = {
      phone_id: `ph_${this.random.hex(16)}`,
      client_id: claims.client_id,
      sub: claims.sub,
      handshake_token: handshakeTokenOf(claims.sub),
      region,
      platform: opts.platform ?? 'android',
      timing: opts.timing ?? 'hardware',
      honour_device_token: opts.honour_device_token ?? false,
      bluetooth: opts.bluetooth ?? 'on',
      permissions: opts.permissions ?? 'granted',
      seen: {},
      scan_ends_at: null,
      connection: null,
      seq: 0,
      events: [],
      created_ms: now,
    };
    await this.phones.put(p.phone_id, p);
    return phoneView(p, this.now(p));
  }

  /** The control API's listing, in id order, one app's phones when it names one. */
  async page(q: PageQuery): Promise<Page<PhoneSummary>> {
    const page = await recordPage(this.phones, (p) => p.phone_id, q);
    return { ...page, items: page.items.map(phoneSummary) };
  }

  /** Bluetooth and permissions set as the phone's user would (the control API). */
  async arrange(id: string, a: PhoneArrangement): Promise<PhoneSummary> {
    return this.phones.update(id, (cur) => {
      if (!cur) throw phoneNotFound(id);
      const next = arranged(cur, a);
      return { next, result: phoneSummary(next) };
    });
  }

  async get(id: string): Promise<PhoneView> {
    const p = await this.must(id);
    return phoneView(p, this.now(p));
  }

  /** The recorder this phone is connected to (409 NOT_CONNECTED otherwise), for the recordings calls. */
  async connectedRecorder(id: string): Promise<{ phone: PhoneRecord; rec: RecorderRecord }> {
    const p = await this.must(id);
    const c = requireConnected(p, this.now(p));
    const rec = await this.recorders.record(c.sn);
    if (!rec) throw SimError.conflict('NOT_CONNECTED', `Recorder ${c.sn} is gone; connect again.`);
    return { phone: p, rec };
  }

  /** The app of a phone, while it exists (the app a recorder's events go to). */
  async appOf(id: string): Promise<string | undefined> {
    return (await this.phones.get(id))?.client_id;
  }

  async remove(id: string): Promise<void> {
    await this.disconnect(id, 'phone_removed');
    await this.phones.delete(id);
  }

  async scan(id: string, windowMs: number | undefined): Promise<Dev['ScanAnswer']> {
    const p0 = await this.must(id);
    requireRadio(p0);
    const now = this.now(p0);
    const { found, devices } = scannedDevices(p0, await this.recorders.inRange());
    const window = p0.timing === 'instant' ? 0 : (windowMs ?? 10000);
    const endsAt = now + window;
    const result = await this.phones.update(id, (cur) => {
      if (!cur) throw phoneNotFound(id);
      const p = scheduleScan(cur, found, devices, now, endsAt);
      return { next: p, result: { devices, ends_at: iso(endsAt) } };
    });
    return result;
  }

  async stopScan(id: string): Promise<void> {
    await this.phones.update(id, (cur) => {
      if (!cur) throw phoneNotFound(id);
      const now = this.now(cur);
      return { next: { ...dropPending(cur, 'scan', now), scan_ends_at: null }, result: undefined };
    });
  }

  /** connectBleDevice / recoveryConnectBleDevice: outcome decided now, events on the clock. */
  async connect(id: string, req: Dev['ConnectRequest']): Promise<ConnectionView> {
    if (req.uuid === undefined && req.serialNumber === undefined)
      throw SimError.invalidField(['body'], 'Name the recorder by uuid or serialNumber', 'missing');
    const p = await this.must(id);
    requireRadio(p);
    const sn = resolveSerial(p, req);
    if (p.connection) await this.disconnect(id, 'reconnect');
    const token = offeredToken(p, req);
    const busyWith = await this.recorderBusy(sn, id);
    const reached = await this.recorders.change(sn, (rec) => reachRecorder(rec, p, sn, busyWith, token));
    // The SDK signs the serial during the handshake (sn-sign), so the cloud knows it from now on.
    if (reached.reason !== 'BLE_CONNECT_FAILED')
      await this.devices.sign({ sn, type: reached.rec.type }, 'body');
    const made = await this.phones.update(id, (cur) => {
      if (!cur) throw phoneNotFound(id);
      const now = this.now(cur);
      const { next, view, handshakeSeq } = openConnection(
        cur,
        sn,
        reached.rec,
        reached.reason,
        token,
        req,
        now,
      );
      return { next, result: { view, seq: handshakeSeq, phone: next } };
    });
    // The last bridge event of a paired handshake is its `bind`: the event's cause.
    if (made.view.outcome === 'paired') await this.events.connected(made.phone, sn, made.seq);
    return made.view;
  }

  /** Ends the connection (if any): pending handshake events dropped, `connectState` 0 now. */
  async disconnect(id: string, why: DisconnectReason = 'disconnect'): Promise<PhoneView> {
    const { view, sn, next } = await this.phones.update(id, (cur) => {
      if (!cur) throw phoneNotFound(id);
      const now = this.now(cur);
      const { next, sn } = closeConnection(cur, now);
      return { next, result: { view: phoneView(next, now), sn, next } };
    });
    if (sn) {
      await this.releaseRecorder(sn, id);
      await this.events.disconnected(next, sn, next.seq, why);
    }
    return view;
  }

  /** depair: the recorder forgets its token and takes a new MAC; the phone must scan again. */
  async depair(id: string, clear = true): Promise<Dev['DepairAnswer']> {
    const p = await this.must(id);
    const c = requireConnected(p, this.now(p));
    const { mac, deleted } = await this.recorders.change(c.sn, (rec) =>
      depairedRecorder(rec, clear, this.random),
    );
    const after = await this.phones.update(id, (cur) => {
      if (!cur) throw phoneNotFound(id);
      const now = this.now(cur);
      const next = depairedPhone(cur, c.sn, now);
      return { next, result: next };
    });
    await this.events.disconnected(after, c.sn, after.seq, 'depair');
    return { status: 0, sn: c.sn, uuid: uuidFor(p, mac), recordings_deleted: deleted };
  }

  async poll(id: string, after: number, limit: number): Promise<Dev['EventPage']> {
    const p = await this.must(id);
    return eventPage(p, this.now(p), after, limit);
  }

  /** Deliver a recorder's own event (record pressed) to the phone connected to it. */
  async deliver(
    phoneId: string | null,
    sn: string,
    name: 'recordStart' | 'recordStop' | 'recordPause' | 'recordResume',
    data: Record<string, unknown>,
  ): Promise<void> {
    if (!phoneId) return;
    await this.phones.update(phoneId, (cur) => {
      if (!cur || cur.connection?.sn !== sn || cur.connection.outcome !== 'paired')
        return { result: undefined };
      const now = this.now(cur);
      return { next: schedule(cur, [{ at: now, name, data, tag: 'conn' }]), result: undefined };
    });
  }

  /** A recorder changed under its phone (arranged, forgotten): that phone is disconnected. */
  async detach(rec: Pick<RecorderRecord, 'connected_phone'> | undefined): Promise<void> {
    if (rec?.connected_phone && (await this.phones.get(rec.connected_phone)))
      await this.disconnect(rec.connected_phone, 'recorder_changed');
  }

  async resetApp(clientId: string): Promise<void> {
    await this.phones.deleteBy('client_id', clientId);
  }

  private now(p: Pick<PhoneRecord, 'client_id'>): number {
    return this.clockOf(p.client_id).now();
  }

  private async must(id: string): Promise<PhoneRecord> {
    const p = await this.phones.get(id);
    if (!p) throw phoneNotFound(id);
    return p;
  }

  /** Another live phone holds a paired connection to `sn`. */
  private async recorderBusy(sn: string, me: string): Promise<boolean> {
    const rec = await this.recorders.record(sn);
    if (!rec?.connected_phone || rec.connected_phone === me) return false;
    const other = await this.phones.get(rec.connected_phone);
    return other?.connection?.sn === sn && other.connection.outcome === 'paired';
  }

  private async releaseRecorder(sn: string, phoneId: string): Promise<void> {
    await this.recorders
      .change(sn, (rec) =>
        rec.connected_phone === phoneId
          ? { next: { ...rec, connected_phone: null }, result: 0 }
          : { result: 0 },
      )
      .catch((e: unknown) => {
        if (!(e instanceof SimError && e.status === 404)) throw e;
      });
  }
}
