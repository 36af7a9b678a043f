import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Clock } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import { fromRoot } from '../core/root.js';
import type { components } from '../spec/admin-types.js';
import { type Page, type PageQuery, recordPage } from '../store/recordPage.js';
import type { Collection, Store } from '../store/store.js';
import { probeAudio } from '../transcription/audio.js';
import { checkType, normalizeSerial } from './deviceModel.js';
import { generatedSize } from './recorderAudio.js';
import {
  BATTERY_LOW,
  freeSessionId,
  type RecorderRecord,
  type RecorderState,
  type RecorderView,
  type RecordingRecord,
  type RecordingView,
  recorderFrom,
  recorderViewOf,
  withRecording,
} from './recorderModel.js';

type NewRecording = components['schemas']['NewRecording'];
type RecordPress = components['schemas']['RecordPress'];

/** A bridge event a recorder sends to the phone connected to it (recordStart/recordStop). */
interface DeviceEvent {
  phone: string;
  name: 'recordStart' | 'recordStop' | 'recordPause' | 'recordResume';
  data: Record<string, unknown>;
}

type Pressed = {
  view: RecorderView;
  event?: Omit<DeviceEvent, 'phone'>;
  phone: string | null;
  /** The recording a stop finished. */
  stopped?: RecordingRecord;
};
const iso = (ms: number): string => new Date(ms).toISOString();
const audioKey = (sn: string, sessionId: number): string => `${sn}.${sessionId}`;

/**
 * The device side of every recorder: one world shared by every app and both regions (as the
 * cloud registry), on the instance clock. Phones (phones.ts) reach it through the device
 * protocol; the control API arranges it.
 */
export class RecorderRegistry {
  private readonly recorders: Collection<RecorderRecord>;
  /** Uploaded bytes of recordings, apart from the record so listing stays cheap. */
  private readonly audio: Collection<{ data: string }>;

  constructor(
    store: Store,
    private readonly random: Random,
    private readonly clock: Clock,
  ) {
    this.recorders = store.collection<RecorderRecord>('recorders');
    this.audio = store.collection<{ data: string }>('recorderAudio');
  }

  /** One page of the recorders in serial order (the control API's listing). */
  async page(q: PageQuery): Promise<Page<RecorderView>> {
    const page = await recordPage(this.recorders, (r) => r.sn, q);
    return { ...page, items: page.items.map(recorderViewOf) };
  }

  /** Recorders a scan can see: advertising ones. */
  async inRange(): Promise<RecorderRecord[]> {
    return this.recorders.findBy('range', 'in');
  }

  record(sn: string): Promise<RecorderRecord | undefined> {
    return this.recorders.get(normalizeSerial(sn));
  }

  async get(sn: string): Promise<RecorderView> {
    return recorderViewOf(await this.must(sn));
  }

  /** Set a recorder's state; also what it was before (a battery crossing is an event). */
  async put(
    rawSn: string,
    state: RecorderState,
  ): Promise<{ view: RecorderView; before: RecorderRecord | undefined }> {
    const sn = normalizeSerial(rawSn);
    const type = checkType(sn, undefined, ['path', 'type']);
    if (state.uuid) await this.refuseTakenRadioId(sn, state.uuid);
    return this.recorders.update(sn, (prev) => {
      const next = withRange(recorderFrom(sn, type, state, this.random, prev));
      return { next, result: { view: recorderViewOf(next), before: prev } };
    });
  }

  /** A connect by uuid must reach one recorder: a radio id another recorder holds is refused. */
  private async refuseTakenRadioId(sn: string, uuid: string): Promise<void> {
    const all = [
      ...(await this.recorders.findBy('range', 'in')),
      ...(await this.recorders.findBy('range', 'out')),
    ];
    const holder = all.find((r) => r.sn !== sn && r.mac.toUpperCase() === uuid.toUpperCase());
    if (holder)
      throw SimError.invalidField(
        ['body', 'uuid'],
        `${uuid} is the radio id of recorder ${holder.sn}; a radio id names one recorder`,
        'value_error',
      );
  }

  /** Replace the whole record (arrangements), recordings dropped. */
  async replace(rec: RecorderRecord): Promise<RecorderView> {
    const old = await this.recorders.get(rec.sn);
    for (const r of old?.recordings ?? []) await this.audio.delete(audioKey(rec.sn, r.session_id));
    const next = withRange(rec);
    await this.recorders.put(rec.sn, next);
    return recorderViewOf(next);
  }

  /** Atomic change of one recorder; 404 when it has no device side. */
  change<R>(sn: string, fn: (rec: RecorderRecord) => { next?: RecorderRecord; result: R }): Promise<R> {
    return this.recorders.update(normalizeSerial(sn), (rec) => {
      if (!rec) throw notFound(sn);
      const { next, result } = fn(rec);
      return next ? { next: withRange(next), result } : { result };
    });
  }

  async remove(sn: string): Promise<void> {
    const rec = await this.must(sn);
    for (const r of rec.recordings) await this.audio.delete(audioKey(rec.sn, r.session_id));
    await this.recorders.delete(rec.sn);
  }

  /** A finished recording: generated by duration, a fixture file, or uploaded bytes. */
  async addRecording(sn: string, body: NewRecording): Promise<RecordingView> {
    const given = [
      body.duration_s !== undefined,
      body.fixture !== undefined,
      body.audio_base64 !== undefined,
    ];
    if (
      given.filter(Boolean).length !== 1 ||
      (body.audio_base64 !== undefined) !== (body.format !== undefined)
    )
      throw SimError.invalidField(
        ['body'],
        'Give exactly one of duration_s, fixture, or audio_base64 with format',
        'value_error',
      );
    const rec = await this.must(sn);
    let bytes: Buffer | undefined;
    let format: 'mp3' | 'wav' = 'mp3';
    let duration: number;
    if (body.duration_s !== undefined) duration = body.duration_s;
    else {
      format = (body.fixture ? body.fixture.slice(-3) : body.format) as 'mp3' | 'wav';
      bytes = body.fixture
        ? await readFile(fromRoot('fixtures', 'audio', body.fixture))
        : Buffer.from(body.audio_base64 ?? '', 'base64');
      const b = bytes;
      const info = await probeAudio({
        filetype: format,
        size: b.length,
        open: () => Readable.from([b], { objectMode: false }),
      });
      if (!info.ok) throw SimError.invalidField(['body', 'audio_base64'], info.message, 'value_error');
      duration = info.duration_s;
    }
    const startMs =
      body.start_time !== undefined ? Date.parse(body.start_time) : this.clock.now() - duration * 1000;
    if (!Number.isFinite(startMs) || startMs < 0)
      throw SimError.invalidField(
        ['body', 'start_time'],
        'Not a valid time after 1970',
        'value_error',
        body.start_time,
      );
    const source = body.duration_s !== undefined ? 'generated' : body.fixture ? 'fixture' : 'upload';
    const stored = bytes;
    return this.change(rec.sn, (cur) => {
      const session_id = freeSessionId(cur, startMs / 1000);
      const r: RecordingRecord = {
        session_id,
        start_time: iso(session_id * 1000),
        duration_s: duration,
        scene: body.scene ?? 0,
        channels: 1,
        format,
        source,
        size: stored ? stored.length : generatedSize(duration),
        ...(body.fixture ? { fixture: body.fixture } : {}),
      };
      return { next: withRecording(cur, r), result: r };
    }).then(async (r) => {
      if (source === 'upload')
        await this.audio.put(audioKey(rec.sn, r.session_id), { data: body.audio_base64! });
      const { fixture: _f, ...view } = r;
      return view;
    });
  }

  /** The real audio of a recording (undefined for generated ones). */
  async bytesOf(sn: string, r: RecordingRecord): Promise<Buffer | undefined> {
    if (r.source === 'fixture') return readFile(fromRoot('fixtures', 'audio', r.fixture!));
    if (r.source === 'upload') {
      const a = await this.audio.get(audioKey(sn, r.session_id));
      return a ? Buffer.from(a.data, 'base64') : Buffer.alloc(0);
    }
    return undefined;
  }

  async deleteRecording(sn: string, sessionId: number): Promise<void> {
    const found = await this.change(sn, (rec) => {
      const recordings = rec.recordings.filter((r) => r.session_id !== sessionId);
      return recordings.length === rec.recordings.length
        ? { result: false }
        : { next: { ...rec, recordings }, result: true };
    });
    if (!found) throw recordingNotFound(sn, sessionId);
    await this.audio.delete(audioKey(normalizeSerial(sn), sessionId));
  }

  /** Record or stop "pressed on the device"; the event for the connected phone, if any. */
  async press(sn: string, p: RecordPress): Promise<Pressed> {
    const now = this.clock.now();
    return this.change<Pressed>(sn, (rec) => {
      if (p.action === 'start') return startPressed(rec, p, now);
      if (!rec.recording) throw SimError.conflict('NOT_RECORDING', `Recorder ${rec.sn} is not recording.`);
      const cur = rec.recording;
      const { session_id, start_time, scene } = cur;
      const pausedMs = (cur.paused_s ?? 0) * 1000 + (cur.paused_at ? now - Date.parse(cur.paused_at) : 0);
      const elapsed = Math.max(1, Math.round((now - session_id * 1000 - pausedMs) / 100) / 10);
      if (p.action === 'pause' || p.action === 'resume') {
        const pause = p.action === 'pause';
        if (pause === Boolean(cur.paused_at))
          throw SimError.conflict(
            pause ? 'ALREADY_PAUSED' : 'NOT_PAUSED',
            `Recorder ${rec.sn}'s recording is ${pause ? 'already' : 'not'} paused.`,
          );
        const recording = pause
          ? { ...cur, paused_at: iso(now) }
          : { ...cur, paused_at: null, paused_s: pausedMs / 1000 };
        const next = { ...rec, recording };
        // As the bridges relay bleRecordPause / bleRecordResume (stop's and start's shapes).
        return pause
          ? pressed(rec, next, 'recordPause', {
              sessionId: session_id,
              reason: 0,
              fileExist: true,
              fileSize: generatedSize(elapsed),
            })
          : pressed(rec, next, 'recordResume', {
              sessionId: session_id,
              start: session_id,
              status: 0,
              scene,
              startTime: session_id * 1000,
            });
      }
      const duration = p.duration_s ?? elapsed;
      const r: RecordingRecord = {
        session_id,
        start_time,
        duration_s: duration,
        scene,
        channels: 1,
        format: 'mp3',
        source: 'generated',
        size: generatedSize(duration),
      };
      const next = withRecording({ ...rec, recording: null }, r);
      const data = { sessionId: session_id, reason: 0, fileExist: true, fileSize: r.size };
      return pressed(rec, next, 'recordStop', data, r);
    });
  }

  private async must(sn: string): Promise<RecorderRecord> {
    const rec = await this.recorders.get(normalizeSerial(sn));
    if (!rec) throw notFound(sn);
    return rec;
  }
}

/** Record pressed on an idle recorder: a new session (unless the battery is too low). */
function startPressed(rec: RecorderRecord, p: RecordPress, now: number) {
  if (rec.recording) throw SimError.conflict('ALREADY_RECORDING', `Recorder ${rec.sn} is already recording.`);
  if (rec.battery < BATTERY_LOW)
    throw SimError.conflict(
      'BATTERY_LOW',
      `Recorder ${rec.sn} has ${rec.battery} % battery; it will not record under ${BATTERY_LOW} %.`,
    );
  const session_id = freeSessionId(rec, now / 1000);
  const recording = { session_id, start_time: iso(session_id * 1000), scene: p.scene ?? 0 };
  const data = {
    sessionId: session_id,
    start: session_id,
    status: 0,
    scene: recording.scene,
    startTime: session_id * 1000,
    // Both bridges relay bleRecordStart's reason (0: the button; meanings undocumented).
    reason: 0,
  };
  return pressed(rec, { ...rec, recording }, 'recordStart', data);
}

/** A press's change: the recorder after it, and the event for the phone connected before it. */
function pressed(
  rec: RecorderRecord,
  next: RecorderRecord,
  name: DeviceEvent['name'],
  data: DeviceEvent['data'],
  stopped?: RecordingRecord,
) {
  const result: Pressed = {
    view: recorderViewOf(next),
    event: { name, data },
    phone: rec.connected_phone,
    ...(stopped ? { stopped } : {}),
  };
  return { next, result };
}

/** The indexed field scans look up (`findBy` compares text, so the boolean is mirrored). */
function withRange(rec: RecorderRecord): RecorderRecord {
  return { ...rec, range: rec.in_range ? 'in' : 'out' };
}

const notFound = (sn: string): SimError =>
  SimError.notFound(
    'RECORDER_NOT_FOUND',
    `No recorder ${normalizeSerial(sn)}; arrange one with POST /__admin/recorders/{sn}/arrange.`,
  );
export const recordingNotFound = (sn: string, id: number): SimError =>
  SimError.notFound('RECORDING_NOT_FOUND', `Recorder ${normalizeSerial(sn)} has no recording ${id}.`);
