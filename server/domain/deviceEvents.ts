import { stableId } from '../webhooks/deliveries.js';
import type { WebhookEvent } from '../webhooks/model.js';
import type { RecorderRecord, RecordingRecord } from './recorderModel.js';

/** Where events go: webhooks/webhooks.ts `emit`. */
export interface DeviceEventSink {
  emit(clientId: string, event: WebhookEvent, data: unknown, eventId: string): Promise<unknown>;
}

/** How the app of a recorder is found for a control-API cause (services.ts wires it). */
export interface RecorderAppLookup {
  /** The app of a phone (undefined once the phone is gone). */
  phoneApp(phoneId: string): Promise<string | undefined>;
  /** The cloud owner of a serial, if it has one. */
  owner(sn: string): Promise<{ sub: string; client_id: string } | null | undefined>;
}

/** The docs: `device.battery_low` "below 15 %". Apart from the firmware's refusal to record (5 %). */
const BATTERY_LOW_EVENT = 15;

/** Who caused a phone-side event: the SDK session of an app's user. */
export interface PhoneCause {
  phone_id: string;
  client_id: string;
  sub: string;
}

/** What the events need of a recorder (its record or its view). */
type RecorderSide = Pick<RecorderRecord, 'sn' | 'paired_to' | 'connected_phone' | 'battery'>;

export type DisconnectReason = 'disconnect' | 'depair' | 'reconnect' | 'phone_removed' | 'recorder_changed';

/**
 * The `device.*` webhook events of the virtual recorders, where the model has the cause. A
 * phone's cause goes to the phone's app; a control-API cause (a record press, a battery level)
 * to the app of the phone connected to the recorder, else to the app of the recorder's cloud
 * owner when that owner is the account the recorder is paired to. Each id is derived from the
 * cause (a phone's bridge-event seq, a recording's session id), so every delivery, retry and
 * duplicate of it carries the same one. Emitting stores deliveries and returns (sending
 * happens in the webhook pass); a failure is logged, never the request's error, since the
 * change it reports is already made.
 */
export class DeviceEvents {
  constructor(
    private readonly sink: DeviceEventSink,
    private readonly lookup: RecorderAppLookup,
    private readonly onError: (e: unknown) => void,
    /** Tells battery crossings of one recorder apart (a frozen clock would not). */
    private readonly nonce: () => string,
  ) {}

  /** A handshake paired; `seq` is its `bind` bridge event's. */
  connected(p: PhoneCause, sn: string, seq: number): Promise<void> {
    const data = { sn, phone_id: p.phone_id, user: p.sub };
    return this.send(p.client_id, 'device.connected', data, p.phone_id, String(seq));
  }

  /** A paired connection ended; `seq` is the bridge event that tells the phone. */
  disconnected(p: PhoneCause, sn: string, seq: number, reason: DisconnectReason): Promise<void> {
    const data = { sn, phone_id: p.phone_id, user: p.sub, reason };
    return this.send(p.client_id, 'device.disconnected', data, p.phone_id, String(seq));
  }

  /** A recording's audio reached a phone (exportRecording): once per phone and recording. */
  synced(p: PhoneCause, sn: string, r: RecordingRecord): Promise<void> {
    const data = { sn, phone_id: p.phone_id, user: p.sub, recording: recordingData(r) };
    return this.send(p.client_id, 'device.synced', data, p.phone_id, sn, String(r.session_id));
  }

  /** A recording stopped on the device. */
  async recordingCompleted(rec: RecorderSide, r: RecordingRecord): Promise<void> {
    const app = await this.appOf(rec);
    if (!app) return;
    const data = { sn: rec.sn, user: rec.paired_to, recording: recordingData(r) };
    await this.send(app, 'device.recording_completed', data, rec.sn, String(r.session_id));
  }

  /** The battery was set from at least BATTERY_LOW_EVENT to under it (or a new recorder under it). */
  async batteryChanged(before: Pick<RecorderRecord, 'battery'> | undefined, after: RecorderSide) {
    if (after.battery >= BATTERY_LOW_EVENT) return;
    if (before && before.battery < BATTERY_LOW_EVENT) return;
    const app = await this.appOf(after);
    if (!app) return;
    const data = {
      sn: after.sn,
      user: after.paired_to,
      battery: after.battery,
      threshold: BATTERY_LOW_EVENT,
    };
    await this.send(app, 'device.battery_low', data, after.sn, this.nonce());
  }

  private async appOf(rec: RecorderSide): Promise<string | undefined> {
    try {
      if (rec.connected_phone) {
        const app = await this.lookup.phoneApp(rec.connected_phone);
        if (app) return app;
      }
      if (!rec.paired_to) return undefined;
      const owner = await this.lookup.owner(rec.sn);
      return owner?.sub === rec.paired_to ? owner.client_id : undefined;
    } catch (e) {
      this.onError(e);
      return undefined;
    }
  }

  private async send(clientId: string, event: WebhookEvent, data: unknown, ...cause: string[]) {
    try {
      await this.sink.emit(clientId, event, data, stableId('evt', event, ...cause));
    } catch (e) {
      this.onError(e);
    }
  }
}

function recordingData(r: RecordingRecord) {
  return {
    session_id: r.session_id,
    start_time: r.start_time,
    duration_s: r.duration_s,
    size: r.size,
    scene: r.scene,
  };
}
