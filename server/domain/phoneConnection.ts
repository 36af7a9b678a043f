import type { Random } from '../core/random.js';
import type { components } from '../spec/device-types.js';
import { unknownDevice } from './phoneErrors.js';
import {
  type ConnectionRecord,
  type ConnectionView,
  connectionView,
  delay,
  dropPending,
  handshakeEvents,
  type PhoneRecord,
  type RefusalReason,
  schedule,
  uuidFor,
} from './phoneModel.js';
import { accountOfToken, handshakeTokenOf, nextRadio, type RecorderRecord } from './recorderModel.js';

type Dev = components['schemas'];

/** The serial a connect names, as this phone's scan saw it. */
export function resolveSerial(p: PhoneRecord, req: Dev['ConnectRequest']): string {
  if (req.uuid !== undefined) {
    const hit = Object.entries(p.seen).find(
      ([, mac]) => uuidFor(p, mac).toUpperCase() === req.uuid!.toUpperCase(),
    );
    if (!hit) throw unknownDevice(req.uuid, false);
    return hit[0];
  }
  const sn = req.serialNumber!.toUpperCase();
  if (!p.seen[sn]) throw unknownDevice(sn, false);
  return sn;
}

/** The handshake token a connect offers: the pinned account's, the app's own, or the phone's. */
export const offeredToken = (p: PhoneRecord, req: Dev['ConnectRequest']): string =>
  req.pinned_id
    ? handshakeTokenOf(accountOfToken(req.pinned_id))
    : p.honour_device_token && req.deviceToken
      ? req.deviceToken
      : p.handshake_token;

/** Why the recorder refuses this handshake, or null when it pairs. */
const refusalOf = (rec: RecorderRecord, busy: boolean, token: string): RefusalReason | null =>
  !rec.in_range || busy
    ? 'BLE_CONNECT_FAILED'
    : rec.recording
      ? 'RECORDING_NOW'
      : rec.paired_to && handshakeTokenOf(rec.paired_to) !== token
        ? 'TOKEN_NOT_MARCH'
        : null;

/** The recorder's side of a connect: it refuses, or takes the phone (and the token, when unpaired). */
export function reachRecorder(
  rec: RecorderRecord,
  p: PhoneRecord,
  sn: string,
  busy: boolean,
  token: string,
): { next?: RecorderRecord; result: { rec: RecorderRecord; reason: RefusalReason | null } } {
  if (rec.mac !== p.seen[sn]) throw unknownDevice(sn, true);
  const reason = refusalOf(rec, busy, token);
  if (reason) return { result: { rec, reason } };
  // An unpaired recorder takes the token it is offered (as a phone's first pairing).
  const paired_to = rec.paired_to ?? accountOfToken(token);
  return { next: { ...rec, paired_to, connected_phone: p.phone_id }, result: { rec, reason } };
}

/** The phone with its new connection to `sn` and the handshake's events on its clock. */
export function openConnection(
  cur: PhoneRecord,
  sn: string,
  rec: RecorderRecord,
  reason: RefusalReason | null,
  token: string,
  req: Dev['ConnectRequest'],
  now: number,
): { next: PhoneRecord; view: ConnectionView; handshakeSeq: number } {
  const base = {
    sn,
    uuid: uuidFor(cur, rec.mac),
    outcome: reason ? ('refused' as const) : ('paired' as const),
    reason,
  };
  const evs = handshakeEvents(cur, base);
  // Connecting ends the scan unless the bridge leaves it on (keep_scanning); a depair's
  // pending link drop is no answer to this connect.
  const keep = req.keep_scanning === true;
  const settled = settleDepair(keep ? cur : dropPending(cur, 'scan', now), now, false);
  const ready: PhoneRecord = keep ? settled : { ...settled, scan_ends_at: null };
  const c: ConnectionRecord = {
    ...base,
    handshake_token: token,
    pinned: req.pinned_id !== undefined,
    clear: req.clear ?? false,
    started_at: now,
    settles_at: now + Math.max(0, ...evs.map((e) => e.after)),
  };
  const handshake = evs.map((e) => ({ at: now + e.after, name: e.name, data: e.data, tag: 'conn' as const }));
  // A scan left on (its timeout up to 10 s away) must not hold the handshake back.
  const next = schedule({ ...ready, connection: c }, handshake, keep ? { requeueAfter: now } : {});
  const handshakeSeq = next.events.findLast((e) => e.tag === 'conn')?.seq ?? next.seq;
  return { next, view: connectionView(c, now), handshakeSeq };
}

/** The phone with its connection ended: pending handshake events dropped, `connectState` 0 if it was up. */
export function closeConnection(
  cur: PhoneRecord,
  now: number,
): { next: PhoneRecord; sn: string | undefined } {
  // After a depair the link is already going: the disconnect settles it now.
  if (!cur.connection) return { next: settleDepair(cur, now, true), sn: undefined };
  const wasUp = cur.connection.outcome === 'paired';
  let next: PhoneRecord = { ...dropPending(cur, 'conn', now), connection: null };
  if (wasUp)
    next = schedule(next, [
      { at: now, name: 'connectState', data: { connected: false, failed: false, state: 0 } },
    ]);
  return { next, sn: wasUp ? cur.connection.sn : undefined };
}

/** The recorder's side of a depair: it forgets its token, takes a new MAC and, when asked, its recordings. */
export function depairedRecorder(
  rec: RecorderRecord,
  clear: boolean,
  random: Random,
): { next: RecorderRecord; result: { mac: string; deleted: number } } {
  const wipe = clear && rec.clear_deletes_recordings;
  const radio = nextRadio(random, rec.sn, rec);
  const mac = radio.mac;
  const next = {
    ...rec,
    ...radio,
    paired_to: null,
    connected_phone: null,
    recordings: wipe ? [] : rec.recordings,
  };
  return { next, result: { mac, deleted: wipe ? rec.recordings.length : 0 } };
}

/**
 * A depair's pending events (its result, then the link drop) made due now, as the app moved
 * on (a disconnect, `keepDrop`) or dropped the drop (a new connect: the old link's end must
 * not read as this connect's refusal).
 */
function settleDepair(cur: PhoneRecord, now: number, keepDrop: boolean): PhoneRecord {
  const pending = (e: PhoneRecord['events'][number]) => e.tag === 'drop' && e.at > now;
  const settled = cur.events.filter(pending);
  if (!settled.length) return cur;
  const rest: PhoneRecord = { ...cur, events: cur.events.filter((e) => !pending(e)) };
  return schedule(
    rest,
    settled
      .filter((e) => keepDrop || e.name !== 'connectState')
      .map((e) => ({ at: now, name: e.name, data: e.data })),
  );
}

/** The phone after a depair of `sn`: it forgets the recorder, then hears depair and the drop. */
export function depairedPhone(cur: PhoneRecord, sn: string, now: number): PhoneRecord {
  const { [sn]: _gone, ...seen } = cur.seen;
  return schedule({ ...dropPending(cur, 'conn', now), connection: null, seen }, [
    { at: now + delay(cur, 'depair'), name: 'depair', data: { status: 0 }, tag: 'drop' },
    {
      at: now + delay(cur, 'depairDrop'),
      name: 'connectState',
      data: { connected: false, failed: false, state: 0 },
      tag: 'drop',
    },
  ]);
}
