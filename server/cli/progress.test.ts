import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration, type Out, StatusSpinner, UploadProgress } from './progress.js';

/** A stream that records what is written; `isTTY` makes it a fake terminal. */
const stream = (isTTY: boolean): Out & { text: () => string } => {
  const chunks: string[] = [];
  return { isTTY, columns: 100, write: (c: string) => chunks.push(c), text: () => chunks.join('') };
};
/** A clock the test moves. */
const clock = () => {
  let t = 1_000_000;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
};
const KiB = 1024;

describe('UploadProgress', () => {
  it('prints plain lines (no control characters) with bytes, rate and ETA when not a terminal', () => {
    const out = stream(false);
    const c = clock();
    const p = new UploadProgress(out, 100 * KiB, c.now);
    for (let sent = 10; sent <= 100; sent += 10) {
      c.advance(1000);
      p.update(sent * KiB);
    }
    p.done();
    const lines = out.text().split('\n').filter(Boolean);
    // 10 KiB each second; one line per quarter of the file at most, the last one always.
    expect(lines).toEqual([
      'upload: 10%  10.0 KiB / 100.0 KiB  10.0 KiB/s  ETA 0:09',
      'upload: 30%  30.0 KiB / 100.0 KiB  10.0 KiB/s  ETA 0:07',
      'upload: 50%  50.0 KiB / 100.0 KiB  10.0 KiB/s  ETA 0:05',
      'upload: 80%  80.0 KiB / 100.0 KiB  10.0 KiB/s  ETA 0:02',
      'upload: 100%  100.0 KiB / 100.0 KiB  10.0 KiB/s  ETA 0:00',
    ]);
    expect(out.text()).not.toContain('\r');
    expect(out.text()).not.toContain('\x1b');
  });

  it('redraws one line with a bar on a terminal, and ends it', () => {
    const out = stream(true);
    const c = clock();
    const p = new UploadProgress(out, 4 * KiB, c.now);
    c.advance(2000);
    p.update(1 * KiB);
    c.advance(2000);
    p.update(4 * KiB);
    p.done();
    const frames = out.text().split('\r\x1b[2K').filter(Boolean);
    expect(frames).toEqual([
      `upload [${'█'.repeat(6)}${'░'.repeat(18)}]  25%  1.0 KiB / 4.0 KiB  512 B/s  ETA 0:06`,
      `upload [${'█'.repeat(24)}] 100%  4.0 KiB / 4.0 KiB  1.0 KiB/s  ETA 0:00\n`,
    ]);
  });
});

describe('StatusSpinner', () => {
  it('prints one line per new status when not a terminal', () => {
    const out = stream(false);
    const s = new StatusSpinner(out, 'transcription t1');
    for (const st of ['PENDING', 'PENDING', 'RECEIVED', 'SUCCESS']) s.set(st);
    s.stop();
    expect(out.text()).toBe(
      'transcription t1: PENDING\ntranscription t1: RECEIVED\ntranscription t1: SUCCESS\n',
    );
  });

  it('spins on a terminal: frame, status and time spent on one redrawn line', () => {
    const out = stream(true);
    const c = clock();
    const s = new StatusSpinner(out, 'transcription t1', c.now, 0);
    s.set('PENDING');
    c.advance(65_000);
    s.set('PROGRESS');
    s.stop();
    expect(out.text()).toBe(
      '\r\x1b[2K⠙ transcription t1: PENDING  0:00\r\x1b[2K⠹ transcription t1: PROGRESS  1:05\n',
    );
  });
});

describe('formatting', () => {
  it('sizes and durations', () => {
    expect([
      formatBytes(512),
      formatBytes(1536),
      formatBytes(5 * KiB * KiB),
      formatBytes(3 * KiB ** 3),
    ]).toEqual(['512 B', '1.5 KiB', '5.0 MiB', '3.00 GiB']);
    expect([formatDuration(0), formatDuration(61.4), formatDuration(Number.POSITIVE_INFINITY)]).toEqual([
      '0:00',
      '1:01',
      '--:--',
    ]);
  });
});
