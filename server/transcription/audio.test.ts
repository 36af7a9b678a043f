import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AUDIO_FIXTURES, audioPath, openAudio, readAudio } from '../testing/audioFixtures.js';
import { fallbackDuration, probeAudio } from './audio.js';

describe('probeAudio', () => {
  it.each(
    Object.values(AUDIO_FIXTURES),
  )('reads the duration of $file from a file and from a stream', async (f) => {
    const size = (await readAudio(f)).length;
    const fromFile = await probeAudio({
      filetype: f.filetype,
      size,
      open: () => openAudio(f),
      path: audioPath(f),
    });
    const fromStream = await probeAudio({ filetype: f.filetype, size, open: () => openAudio(f) });
    for (const r of [fromFile, fromStream]) {
      expect(r.ok).toBe(true);
      if (r.ok) expect(Math.abs(r.duration_s - f.duration)).toBeLessThan(0.1);
    }
  });

  it('calls bytes that are not audio undecodable, with a message', async () => {
    for (const [filetype, bytes] of [
      ['mp3', Buffer.from('this is a text file, not an mp3\n'.repeat(20))],
      ['wav', Buffer.from('RIFF\u0000\u0000\u0000\u0000WAVEjunk')],
      ['m4a', Buffer.alloc(0)],
    ] as const) {
      const r = await probeAudio({ filetype, size: bytes.length, open: () => Readable.from([bytes]) });
      expect(r.ok, filetype).toBe(false);
      if (!r.ok) expect(r.message).toMatch(/^The audio file could not be decoded/);
    }
  });

  it('gives URLs it cannot read a stable stand-in duration of 20–180 s', () => {
    const a = fallbackDuration('https://example.com/a.mp3');
    expect(a).toBe(fallbackDuration('https://example.com/a.mp3'));
    expect(a).not.toBe(fallbackDuration('https://example.com/b.mp3'));
    for (let i = 0; i < 50; i++) {
      const d = fallbackDuration(`https://example.com/${i}.mp3`);
      expect(d).toBeGreaterThanOrEqual(20);
      expect(d).toBeLessThan(180);
    }
  });
});
