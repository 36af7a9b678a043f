import { SimError } from '../core/errors.js';
import type { components } from '../spec/admin-types.js';
import { opusSize } from './recorderAudio.js';
import {
  BATTERY_LOW,
  freeSessionId,
  type RecorderRecord,
  type RecorderView,
  type RecordingRecord,
  recorderViewOf,
  withRecording,
} from './recorderModel.js';

// The button on the device (start, pause, resume, stop) as pure changes of one recorder
// record, apart from the registry's storage: each press yields the record after it and the
// bridge event the connected phone receives.

type RecordPress = components['schemas']['RecordPress'];

/** A bridge event a recorder sends to the phone connected to it (recordStart/recordStop). */
interface DeviceEvent {
  phone: string;
  name: 'recordStart' | 'recordStop' | 'recordPause' | 'recordResume';
  data: Record<string, unknown>;
}

export type Pressed = {
  view: RecorderView;
  event?: Omit<DeviceEvent, 'phone'>;
  phone: string | null;
  /** The recording a stop finished. */
  stopped?: RecordingRecord;
};
export const iso = (ms: number): string => new Date(ms).toISOString();

/** Record, pause, resume or stop pressed on `rec` at `now`; conflicts refuse the press. */
export function pressRecorder(
  rec: RecorderRecord,
  p: RecordPress,
  now: number,
): { next: RecorderRecord; result: Pressed } {
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
          fileSize: opusSize(elapsed),
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
    size: opusSize(duration),
  };
  const next = withRecording({ ...rec, recording: null }, r);
  const data = { sessionId: session_id, reason: 0, fileExist: true, fileSize: r.size };
  return pressed(rec, next, 'recordStop', data, r);
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
