import { SimError } from '../core/errors.js';
import type { components } from '../spec/device-types.js';
import type { Region } from './apps.js';
import { iosUuidOf } from './recorderModel.js';

/**
 * A phone of the device protocol (an SDK session) and its event queue, as pure rules. Events
 * are scheduled at simulated times and stored; a poll hands out those that are due. Nothing
 * waits on a timer, so a restart or a moved clock loses nothing.
 */

type Dev = components['schemas'];
export type PhoneView = Dev['Phone'];
export type ConnectionView = Dev['Connection'];
export type EventName = Dev['Event']['name'];
type Platform = Dev['Platform'];
export type RefusalReason = 'TOKEN_NOT_MARCH' | 'RECORDING_NOW' | 'BLE_CONNECT_FAILED';

type EventTag = 'scan' | 'conn' | 'drop';

interface StoredEvent {
  seq: number;
  at: number;
  name: EventName;
  data: Record<string, unknown>;
  /**
   * What scheduled it: a scan's events go when the scan stops, a connection's when it ends,
   * a depair's link drop when the app disconnects or connects again first.
   */
  tag?: EventTag;
}

export interface ConnectionRecord {
  sn: string;
  uuid: string;
  outcome: 'paired' | 'refused';
  reason: RefusalReason | null;
  handshake_token: string;
  pinned: boolean;
  clear: boolean;
  started_at: number;
  settles_at: number;
}

export interface PhoneRecord {
  phone_id: string;
  client_id: string;
  sub: string;
  handshake_token: string;
  region: Region;
  platform: Platform;
  timing: 'hardware' | 'instant';
  honour_device_token: boolean;
  /** The phone's Bluetooth and the app's permissions (phoneRadio.ts); absent: on, granted. */
  bluetooth?: 'on' | 'off';
  permissions?: 'granted' | 'denied';
  /** Serial → the MAC it had when this phone's scan saw it. */
  seen: Record<string, string>;
  scan_ends_at: number | null;
  connection: ConnectionRecord | null;
  seq: number;
  events: StoredEvent[];
  /** When it was made, on its app's clock (absent on phones of older runs): its cap's eviction. */
  created_ms?: number;
}

/** Events a phone keeps (oldest dropped). */
const EVENTS_MAX = 500;
/** Devices one scan reports at most (the strongest signals), so a shared instance stays cheap. */
export const SCAN_MAX = 100;

/** Hardware timings (ms after the call); `instant` phones use 0 for all. */
export const TIMING = {
  scanFirst: 200,
  scanEach: 150,
  linkUp: 400,
  bound: 1000,
  iosLockDrop: 1500,
  androidHandshakeTimeout: 10000,
  recordingRefusal: 1000,
  bleFail: 3000,
  depair: 300,
  depairDrop: 500,
} as const;

export const delay = (p: PhoneRecord, key: keyof typeof TIMING): number =>
  p.timing === 'instant' ? 0 : TIMING[key];

/** The recorder's radio id as this phone's platform shows it. */
export const uuidFor = (p: Pick<PhoneRecord, 'platform'>, mac: string): string =>
  p.platform === 'ios' ? iosUuidOf(mac) : mac;

type Scheduled = { at: number; name: EventName; data: Record<string, unknown>; tag?: EventTag };

/**
 * Append events in order: an event is never due before one queued ahead of it, so a poll's
 * cursor (the last seq handed out) is all a client keeps. With `requeueAfter`, the events due
 * after that time are queued again among `items` by when each is due, so a far one does not
 * hold the new ones back; they take new numbers (never handed out, so no cursor has passed them).
 */
export function schedule(
  p: PhoneRecord,
  items: Scheduled[],
  { requeueAfter }: { requeueAfter?: number } = {},
): PhoneRecord {
  if (requeueAfter !== undefined) {
    const pending = p.events.filter((e) => e.at > requeueAfter).map(({ seq: _seq, ...e }) => e);
    const due = p.events.filter((e) => e.at <= requeueAfter);
    return schedule({ ...p, events: due }, byTime(pending, items));
  }
  const events = [...p.events];
  let seq = p.seq;
  let last = events.length ? events[events.length - 1]!.at : 0;
  for (const it of items) {
    last = Math.max(last, it.at);
    events.push({ seq: ++seq, at: last, name: it.name, data: it.data, ...(it.tag ? { tag: it.tag } : {}) });
  }
  return { ...p, seq, events: events.slice(-EVENTS_MAX) };
}

/** Two lists each in time order, merged in time order (the first's event first on a tie). */
function byTime<T extends { at: number }>(a: T[], b: T[]): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length)
    out.push(j >= b.length || (i < a.length && a[i]!.at <= b[j]!.at) ? a[i++]! : b[j++]!);
  return out;
}

/** Drop the not-yet-due events of `tag` (a stopped scan, an ended connection). */
export function dropPending(p: PhoneRecord, tag: EventTag, now: number): PhoneRecord {
  return { ...p, events: p.events.filter((e) => e.tag !== tag || e.at <= now) };
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function connectionView(c: ConnectionRecord, now: number): ConnectionView {
  return {
    sn: c.sn,
    uuid: c.uuid,
    outcome: c.outcome,
    reason: c.reason,
    handshake_token: c.handshake_token,
    pinned: c.pinned,
    clear: c.clear,
    started_at: iso(c.started_at),
    settles_at: iso(c.settles_at),
    settled: now >= c.settles_at,
  };
}

/** Connected as the bridge's isConnected() says: a paired handshake that has settled. */
const isConnected = (p: PhoneRecord, now: number): boolean =>
  p.connection?.outcome === 'paired' && now >= p.connection.settles_at;

export function phoneView(p: PhoneRecord, now: number): PhoneView {
  return {
    phone_id: p.phone_id,
    client_id: p.client_id,
    sub: p.sub,
    handshake_token: p.handshake_token,
    region: p.region,
    platform: p.platform,
    timing: p.timing,
    honour_device_token: p.honour_device_token,
    bluetooth: p.bluetooth ?? 'on',
    permissions: p.permissions ?? 'granted',
    scanning: p.scan_ends_at !== null && now < p.scan_ends_at,
    connected: isConnected(p, now),
    connection: p.connection ? connectionView(p.connection, now) : null,
    now: iso(now),
  };
}

/** The bridge events of a handshake's outcome on `platform`, as offsets from its start. */
export function handshakeEvents(
  p: PhoneRecord,
  c: Pick<ConnectionRecord, 'sn' | 'uuid' | 'outcome' | 'reason'>,
): Array<{ after: number; name: EventName; data: Record<string, unknown> }> {
  const up = { connected: true, failed: false, state: 1 };
  const down = { connected: false, failed: false, state: 0 };
  if (c.outcome === 'paired')
    return [
      { after: delay(p, 'linkUp'), name: 'connectState', data: up },
      { after: delay(p, 'bound'), name: 'bind', data: { sn: c.sn, status: 0, protVersion: 3 } },
    ];
  const fail = { mac: c.uuid, reason: c.reason };
  if (c.reason === 'BLE_CONNECT_FAILED') {
    const t = delay(p, 'bleFail');
    const out = [
      { after: t, name: 'connectState' as const, data: { connected: false, failed: true, state: -1 } },
    ];
    return p.platform === 'android' ? [...out, { after: t, name: 'connectFail', data: fail }] : out;
  }
  const t = delay(p, c.reason === 'RECORDING_NOW' ? 'recordingRefusal' : 'androidHandshakeTimeout');
  if (p.platform === 'ios')
    return [
      { after: delay(p, 'linkUp'), name: 'connectState', data: up },
      { after: c.reason === 'RECORDING_NOW' ? t : delay(p, 'iosLockDrop'), name: 'connectState', data: down },
    ];
  return [
    { after: t, name: 'connectState', data: { connected: false, failed: true, state: 2 } },
    { after: t, name: 'connectFail', data: fail },
  ];
}

/** The settled, paired connection of `p`, or 409 NOT_CONNECTED saying why there is none. */
export function requireConnected(p: PhoneRecord, now: number): ConnectionRecord {
  if (!isConnected(p, now) || !p.connection) {
    const c = p.connection;
    const why = !c
      ? 'No recorder is connected to this phone; connect first.'
      : c.outcome === 'refused'
        ? `The handshake with ${c.sn} was refused (${c.reason}); nothing is connected.`
        : `The handshake with ${c.sn} is still running; it settles at ${iso(c.settles_at)}.`;
    throw SimError.conflict('NOT_CONNECTED', why);
  }
  return p.connection;
}
