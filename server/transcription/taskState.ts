import type { Config } from '../config.js';
import { fallbackDuration } from './audio.js';
import type { TaskRecord } from './model.js';
import { completedAtMs, type StatusView, statusAt, type TimelineInput, totalMs } from './timeline.js';

/** What a task's state is computed from: the settings involved and the simulated time. */
export type StateSettings = Pick<Config, 'transcriptionDelay' | 'resultRetentionMs'>;

/** Seconds of audio: as read, or the documented stand-in for audio the simulator cannot read. */
export function taskDuration(rec: TaskRecord): number {
  return rec.audio?.ok ? rec.audio.duration_s : fallbackDuration(rec.file_url);
}

function engineState(rec: TaskRecord): NonNullable<TimelineInput['engine']> {
  const done = rec.engine_done;
  // Still fetching: held like a task whose engine has not answered.
  if (!done || rec.fetching) return {};
  return { doneMs: done.at_ms - rec.created_ms, ...(done.failure ? { failure: done.failure } : {}) };
}

function timelineOf(rec: TaskRecord, cfg: StateSettings, nowMs: number): TimelineInput {
  const failure =
    rec.source.kind === 'unavailable'
      ? rec.source.message
      : rec.audio?.ok === false
        ? rec.audio.message
        : undefined;
  return {
    elapsedMs: nowMs - rec.created_ms,
    totalMs: totalMs(cfg.transcriptionDelay, taskDuration(rec)),
    failure,
    outcome: rec.outcome,
    pinned: rec.pinned,
    ...(rec.pinned_ms !== undefined ? { pinnedAtMs: rec.pinned_ms - rec.created_ms } : {}),
    ...(rec.engine || rec.fetching ? { engine: engineState(rec) } : {}),
  };
}

/** The status (and message) of a task at `nowMs`. */
export function taskView(rec: TaskRecord, cfg: StateSettings, nowMs: number): StatusView {
  return statusAt(timelineOf(rec, cfg, nowMs));
}

/**
 * Finished longer ago than --result-retention at `nowMs`: such a task is gone, as an unknown
 * id. A task still running (or stuck, or pinned to a running state) never expires.
 */
export function taskExpired(rec: TaskRecord, cfg: StateSettings, nowMs: number): boolean {
  const done = completedAtMs(timelineOf(rec, cfg, nowMs));
  return done !== undefined && nowMs >= rec.created_ms + done + cfg.resultRetentionMs;
}
