import { describe, expect, it } from 'vitest';
import { AUTO_MAX_MS, completedAtMs, phaseStartMs, statusAt, totalMs } from './timeline.js';

const T = 10_000;
const at = (elapsedMs: number, extra: Partial<Parameters<typeof statusAt>[0]> = {}) =>
  statusAt({ elapsedMs, totalMs: T, ...extra });

describe('transcription timeline', () => {
  it('walks PENDING → RECEIVED → STARTED → PROGRESS → SUCCESS at the phase boundaries', () => {
    const seen = [-5000, 0, 999, 1000, 2499, 2500, 3999, 4000, 9999, 10_000, 1e9].map((e) => at(e).status);
    expect(seen).toEqual([
      'PENDING',
      'PENDING',
      'PENDING',
      'RECEIVED',
      'RECEIVED',
      'STARTED',
      'STARTED',
      'PROGRESS',
      'PROGRESS',
      'SUCCESS',
      'SUCCESS',
    ]);
    expect(phaseStartMs('STARTED', T)).toBe(2500);
    expect(at(1e9).message).toBeUndefined();
  });

  it('instant mode succeeds at once; auto mode scales with the audio and is capped', () => {
    expect(statusAt({ elapsedMs: 0, totalMs: 0 }).status).toBe('SUCCESS');
    expect(totalMs('auto', 5)).toBe(4000);
    expect(totalMs('auto', 60)).toBe(15_000);
    expect(totalMs('auto', 3600)).toBe(AUTO_MAX_MS);
    expect(totalMs(1234, 3600)).toBe(1234);
  });

  it('an unusable input fails when processing would start, with the reason as message', () => {
    const failure = 'The audio file could not be downloaded: gone';
    expect(at(1500, { failure }).status).toBe('RECEIVED');
    expect(at(2500, { failure })).toEqual({ status: 'FAILURE', message: failure });
    expect(at(1e9, { failure })).toEqual({ status: 'FAILURE', message: failure });
  });

  it('a terminal outcome replaces SUCCESS; a running outcome keeps the task in that state', () => {
    expect(at(5000, { outcome: { status: 'REVOKED' } }).status).toBe('PROGRESS');
    expect(at(T, { outcome: { status: 'REVOKED' } })).toEqual({
      status: 'REVOKED',
      message: 'The task was revoked.',
    });
    expect(at(T, { outcome: { status: 'FAILURE', message: 'boom' } })).toEqual({
      status: 'FAILURE',
      message: 'boom',
    });
    expect(at(500, { outcome: { status: 'STARTED' } }).status).toBe('PENDING');
    expect(at(1e9, { outcome: { status: 'STARTED' } })).toEqual({ status: 'STARTED' });
    expect(at(1e9, { outcome: { status: 'PENDING' }, failure: 'x' })).toEqual({ status: 'PENDING' });
  });

  it('a pinned status wins over the clock, the input and the outcome', () => {
    expect(at(0, { pinned: { status: 'SUCCESS' } }).status).toBe('SUCCESS');
    expect(at(1e9, { pinned: { status: 'PROGRESS', message: 'ignored' } })).toEqual({ status: 'PROGRESS' });
    expect(at(1e9, { pinned: { status: 'FAILURE' }, failure: 'why' })).toEqual({
      status: 'FAILURE',
      message: 'why',
    });
    expect(at(0, { pinned: { status: 'REVOKED', message: 'cancelled' } })).toEqual({
      status: 'REVOKED',
      message: 'cancelled',
    });
  });
});

describe('completion time (start of the retention period)', () => {
  const done = (extra: Partial<Parameters<typeof completedAtMs>[0]> = {}) =>
    completedAtMs({ totalMs: T, ...extra });

  it('is the end for a success or a fault-rule failure, and when processing starts for bad input', () => {
    expect(done()).toBe(T);
    expect(done({ outcome: { status: 'REVOKED' } })).toBe(T);
    expect(done({ failure: 'not audio' })).toBe(phaseStartMs('STARTED', T));
  });

  it('is never for a task stuck or pinned in a running state; the pin time for a pinned end', () => {
    expect(done({ outcome: { status: 'PROGRESS' } })).toBeUndefined();
    expect(done({ outcome: { status: 'RECEIVED' }, failure: 'not audio' })).toBeUndefined();
    expect(done({ pinned: { status: 'STARTED' }, pinnedAtMs: 5 })).toBeUndefined();
    expect(done({ pinned: { status: 'FAILURE' }, pinnedAtMs: 123_456 })).toBe(123_456);
  });
});

describe('a task waiting for its speech engine', () => {
  const base = { totalMs: 1000 };
  it('stays in PROGRESS until the engine answered, then succeeds or fails with its message', () => {
    expect(statusAt({ ...base, elapsedMs: 500, engine: {} }).status).toBe('PROGRESS');
    expect(statusAt({ ...base, elapsedMs: 99_000, engine: {} }).status).toBe('PROGRESS');
    expect(statusAt({ ...base, elapsedMs: 1500, engine: { doneMs: 2000 } }).status).toBe('PROGRESS');
    expect(statusAt({ ...base, elapsedMs: 2000, engine: { doneMs: 2000 } }).status).toBe('SUCCESS');
    expect(statusAt({ ...base, elapsedMs: 1000, engine: { doneMs: 10 } }).status).toBe('SUCCESS');
    expect(statusAt({ ...base, elapsedMs: 2000, engine: { doneMs: 2000, failure: 'boom' } })).toEqual({
      status: 'FAILURE',
      message: 'boom',
    });
  });
  it('finishes (for retention) when the later of timeline and engine ends, never while waiting', () => {
    expect(completedAtMs({ ...base, engine: {} })).toBeUndefined();
    expect(completedAtMs({ ...base, engine: { doneMs: 5000 } })).toBe(5000);
    expect(completedAtMs({ ...base, engine: { doneMs: 200 } })).toBe(1000);
  });
});
