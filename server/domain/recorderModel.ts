import { createHash } from 'node:crypto';
import type { Random } from '../core/random.js';
import { formatUuid } from '../core/random.js';
import type { components } from '../spec/admin-types.js';
import type { DeviceType } from './deviceModel.js';

/**
 * The device side of a recorder (its firmware and radio), beside its cloud binding in
 * deviceModel.ts: pure rules, no store, no HTTP. Stored one record per serial in the
 * `recorders` collection; recordings' uploaded bytes live apart (`recorderAudio`), so the
 * record stays small.
 */

type Admin = components['schemas'];
export type RecorderView = Admin['Recorder'];
export type RecordingView = Admin['Recording'];
export type RecorderState = Admin['RecorderState'];

export interface RecordingRecord extends RecordingView {
  /** For `fixture`: the file under fixtures/audio. */
  fixture?: string;
}

export interface RecorderRecord {
  sn: string;
  type: DeviceType;
  in_range: boolean;
  /** `in_range` as the text the `range` index compares. */
  range?: 'in' | 'out';
  /** The radio id as a MAC (Android's form); iOS sees a UUID derived from it. */
  mac: string;
  /** How many radio ids it has had (each depair or arrangement takes a new one). */
  radio_gen?: number;
  paired_to: string | null;
  battery: number;
  firmware: string;
  rssi: number;
  clear_deletes_recordings: boolean;
  connected_phone: string | null;
  recording: Admin['RecordingInProgress'] | null;
  recordings: RecordingRecord[];
}

/** How many finished recordings a recorder keeps (oldest dropped), so a record stays small. */
const RECORDINGS_MAX = 200;
/** Under this battery level the firmware refuses to start a recording. */
export const BATTERY_LOW = 5;

/** The handshake token the firmware holds for a user: `sub` without `client_user_` and hyphens. */
export function handshakeTokenOf(sub: string): string {
  return sub
    .replace(/^client_user_/, '')
    .replace(/-/g, '')
    .toLowerCase();
}

/** A handshake token or a `client_user_<uuid>` id, as the account id it names. */
export function accountOfToken(idOrToken: string): string {
  if (idOrToken.startsWith('client_user_')) return idOrToken;
  return `client_user_${formatUuid(Buffer.from(idOrToken, 'hex'))}`;
}

const macOf = (b: Buffer): string => {
  b[0] = (b[0]! & 0xfc) | 0x02; // locally administered, unicast
  return [...b.subarray(0, 6)].map((x) => x.toString(16).padStart(2, '0').toUpperCase()).join(':');
};

/**
 * The radio id of a recorder's `gen`-th pairing life: a fresh MAC from the CSPRNG, or, on a
 * seeded instance, one derived from the seed, the serial and the generation, so a run is
 * repeatable and yet no two recorders (nor two lives of one) share an id. A stream drawn per
 * request would hand every recorder the same id.
 */
function radioIdOf(random: Random, sn: string, gen: number): string {
  if (random.seed === undefined) return macOf(random.bytes(6));
  return macOf(createHash('sha256').update(`radio\u0000${random.seed}\u0000${sn}\u0000${gen}`).digest());
}

/** The recorder's next radio life: its generation and its id. */
export function nextRadio(random: Random, sn: string, prev?: { radio_gen?: number }) {
  const radio_gen = (prev?.radio_gen ?? 0) + 1;
  return { radio_gen, mac: radioIdOf(random, sn, radio_gen) };
}

/** iOS shows a peripheral UUID, not the MAC: derived from it, so it changes with it too. */
export function iosUuidOf(mac: string): string {
  return formatUuid(createHash('sha1').update(`ios\u0000${mac}`).digest()).toUpperCase();
}

export const nameOf = (type: DeviceType): string =>
  type === 'notepro' ? 'PLAUD NOTE Pro' : 'PLAUD NotePin S';

export function recorderViewOf(rec: RecorderRecord): RecorderView {
  return {
    sn: rec.sn,
    type: rec.type,
    name: nameOf(rec.type),
    in_range: rec.in_range,
    uuid: rec.mac,
    paired_to: rec.paired_to,
    handshake_token: rec.paired_to ? handshakeTokenOf(rec.paired_to) : null,
    battery: rec.battery,
    firmware: rec.firmware,
    rssi: rec.rssi,
    clear_deletes_recordings: rec.clear_deletes_recordings,
    connected_phone: rec.connected_phone,
    recording: rec.recording,
    recordings: rec.recordings.map(({ fixture: _f, ...r }) => r),
  };
}

/** A recorder with the control API's defaults, keeping `prev`'s recordings and connection. */
export function recorderFrom(
  sn: string,
  type: DeviceType,
  state: RecorderState,
  random: Random,
  prev?: RecorderRecord,
): RecorderRecord {
  return {
    sn,
    type,
    in_range: state.in_range ?? true,
    ...(state.uuid ? { mac: state.uuid, radio_gen: prev?.radio_gen ?? 0 } : nextRadio(random, sn, prev)),
    paired_to: state.paired_to ?? null,
    battery: state.battery ?? 85,
    firmware: state.firmware ?? 'V0095@0205',
    rssi: state.rssi ?? -55,
    clear_deletes_recordings: state.clear_deletes_recordings ?? false,
    connected_phone: prev?.connected_phone ?? null,
    recording: prev?.recording ?? null,
    recordings: prev?.recordings ?? [],
  };
}

/** A session id (start in Unix seconds) not yet used on `rec`, at or after `startS`. */
export function freeSessionId(rec: RecorderRecord, startS: number): number {
  const used = new Set(rec.recordings.map((r) => r.session_id));
  if (rec.recording) used.add(rec.recording.session_id);
  let id = Math.max(0, Math.floor(startS));
  while (used.has(id)) id++;
  return id;
}

/** Append a finished recording, keeping the newest RECORDINGS_MAX. */
export function withRecording(rec: RecorderRecord, r: RecordingRecord): RecorderRecord {
  const recordings = [...rec.recordings, r].sort((a, b) => a.session_id - b.session_id);
  return { ...rec, recordings: recordings.slice(-RECORDINGS_MAX) };
}
