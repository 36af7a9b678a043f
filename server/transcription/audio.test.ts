import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Random } from '../core/random.js';
import { AUDIO_FIXTURES, audioPath, openAudio, readAudio } from '../testing/audioFixtures.js';
import { useTestServers } from '../testing/useTestServers.js';
import { fallbackDuration, probeAudio, publicReason } from './audio.js';
import { hasMpegFrames } from './mpegFrames.js';

const { tempDir } = useTestServers();

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

  it('calls random bytes named .mp3, .wav or .m4a undecodable, read from a file or a stream', async () => {
    const random = new Random('undecodable-audio');
    const dir = await tempDir();
    for (const filetype of ['mp3', 'wav', 'm4a']) {
      for (const size of [200, 4_000, 60_000, 250_000, 60_001, 4_001]) {
        const bytes = random.bytes(size);
        const path = join(dir, `noise-${size}.${filetype}`);
        await writeFile(path, bytes);
        const open = () => Readable.from([bytes]);
        for (const r of [
          await probeAudio({ filetype, size, open }),
          await probeAudio({ filetype, size, open, path }),
        ]) {
          expect(r, `${size} random bytes as ${filetype}`).toMatchObject({ ok: false });
          if (!r.ok) expect(r.message).toMatch(/^The audio file could not be decoded/);
          if (!r.ok) expect(r.message).not.toContain(dir);
        }
      }
    }
  });

  it('finds the chain of MPEG frames of a real MP3, also behind an ID3v2 tag, and none in noise', async () => {
    const mp3 = await readAudio(AUDIO_FIXTURES.mp3);
    expect(hasMpegFrames(mp3)).toBe(true);
    const tag = Buffer.alloc(10 + 300);
    tag.write('ID3\u0004\u0000\u0000', 0, 'latin1');
    tag.writeUInt32BE((300 >> 7) * 256 + (300 & 0x7f), 6); // 300 as a syncsafe integer
    expect(hasMpegFrames(Buffer.concat([tag, mp3]))).toBe(true);
    expect(hasMpegFrames(Buffer.concat([tag, new Random('n').bytes(50_000)]))).toBe(false);
    // The same frames cut after one frame: too little to call it audio.
    expect(hasMpegFrames(mp3.subarray(0, 150))).toBe(false);
  });

  it('never names a server path in a failure message', async () => {
    const dir = await tempDir();
    const path = join(dir, 'blobs', 'ab', 'no-such-blob');
    const r = await probeAudio({ filetype: 'mp3', size: 10, open: () => Readable.from([]), path });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).not.toContain(dir);
    expect(publicReason(`ENOENT: no such file or directory, open '${path}'`)).toBe(
      'ENOENT: no such file or directory, open the stored audio file',
    );
    expect(publicReason('C:\\data\\blobs\\x failed\nstack')).toBe('the stored audio file failed');
    if (!r.ok) expect(r.message).not.toMatch(/\[path\]/);
    expect(publicReason('Unsupported MPEG-4/AAC profile')).toBe('Unsupported MPEG-4/AAC profile');
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
