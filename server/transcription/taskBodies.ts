import { toIso } from '../core/clock.js';
import type { AdminTask, TaskBody, TaskRecord } from './model.js';
import type { StatusView } from './timeline.js';

/** A task as the control API lists it. */
export function adminTask(rec: TaskRecord, view: StatusView): AdminTask {
  return {
    transcription_id: rec.transcription_id,
    client_id: rec.client_id,
    status: view.status,
    file_url: rec.file_url,
    created_at: toIso(rec.created_ms),
    ...(rec.pinned ? { forced_status: rec.pinned.status } : {}),
    ...(view.message ? { message: view.message } : {}),
  };
}

/** What a poll answers (and a webhook event carries): `{transcription_id, status, data, message?}`. */
export function taskBody(id: string, view: StatusView, data: TaskBody['data']): TaskBody {
  return {
    transcription_id: id,
    status: view.status,
    data,
    ...(view.message ? { message: view.message } : {}),
  };
}
