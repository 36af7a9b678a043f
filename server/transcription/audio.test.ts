import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Random } from '../core/random.js';
import { AUDIO_FIXTURES, audioPath, openAudio, readAudio } from '../testing/audioFixtures.js';
import { useTestServers } from '../testing/useTestServers.js';
import { fallbackDuration, probeAudio, publicReason } from './audio.js';
import { hasAdtsFrames, hasMpegFrames } from './mpegFrames.js';

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

  it('turns down random bytes behind one real frame header, MPEG or ADTS, whichever framing the parser claims (seeded)', async () => {
    // Before the ADTS chain rule, 29 of these 400 probed as audio (0.01-0.2 s): the parser's
    // last stray sync was an ADTS one, and only "MPEG" was held to a chain of frames.
    const random = new Random('one-header-then-noise');
    const dir = await tempDir();
    const HEADERS = [
      [0xff, 0xfb, 0x90, 0x64], // MPEG-1 Layer III, 128 kbit/s, 44.1 kHz
      [0xff, 0xf3, 0x84, 0xc4], // MPEG-2 Layer III, 64 kbit/s, 22.05 kHz
      [0xff, 0xf1, 0x50, 0x80, 0x19, 0x1f, 0xfc], // ADTS, AAC LC, 44.1 kHz, stereo, 200 bytes
    ];
    const accepted: string[] = [];
    const N = 400;
    for (let i = 0; i < N; i++) {
      const size = [2_000, 8_000, 30_000, 60_000][i % 4]!;
      const bytes = Buffer.concat([Buffer.from(HEADERS[i % HEADERS.length]!), random.bytes(size)]);
      const path = join(dir, `one-header-${i}.mp3`);
      await writeFile(path, bytes);
      const r = await probeAudio({
        filetype: 'mp3',
        size: bytes.length,
        open: () => Readable.from([bytes]),
        path,
      });
      if (r.ok) accepted.push(`#${i} ${r.duration_s} s`);
      else expect(r.message).toMatch(/^The audio file could not be decoded/);
    }
    expect(accepted).toEqual([]);
  }, 60_000);

  it('finds the chain of ADTS frames of AAC and reads its duration; one header and noise is no chain', async () => {
    const frame = Buffer.alloc(200);
    frame.set([0xff, 0xf1, 0x50, 0x80, 0x19, 0x1f, 0xfc]); // MPEG-4 AAC LC, 44.1 kHz, stereo, 200 bytes
    const aac = Buffer.concat(Array.from({ length: 400 }, () => frame));
    expect(hasAdtsFrames(aac)).toBe(true);
    expect(hasAdtsFrames(aac.subarray(0, 250))).toBe(false);
    expect(hasAdtsFrames(Buffer.concat([frame.subarray(0, 7), new Random('a').bytes(50_000)]))).toBe(false);
    // An ADTS header is never an MPEG one (layer 00 is reserved there): each framing its own chain.
    expect(hasMpegFrames(aac)).toBe(false);
    const path = join(await tempDir(), 'tone.aac');
    await writeFile(path, aac);
    const r = await probeAudio({ filetype: 'aac', size: aac.length, open: () => Readable.from([aac]), path });
    // 400 frames of 1,024 samples at 44.1 kHz.
    expect(r).toEqual({ ok: true, duration_s: Math.round(((400 * 1024) / 44100) * 1000) / 1000 });
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
