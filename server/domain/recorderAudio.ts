import { Readable } from 'node:stream';
import { SimError } from '../core/errors.js';
import type { RecordingRecord } from './recorderModel.js';

/**
 * What the simulator can export honestly without an encoder: generated recordings are
 * silence, which it can write exactly in mp3 (frames whose side information says "no data"),
 * wav and pcm; real audio only as its own bytes (and a 16-bit PCM wav also as its samples).
 */

export type ExportFormat = 'mp3' | 'wav' | 'pcm' | 'opus';

/** One MPEG-1 Layer III frame of silence: 128 kbit/s, 48 kHz, mono, 384 bytes, 24 ms. */
const MP3_FRAME = (() => {
  const f = Buffer.alloc(384);
  f.set([0xff, 0xfb, 0x94, 0xc4]);
  return f;
})();
const MP3_FRAME_S = 0.024;
const PCM_RATE = 16000;
const CHUNK = 256 * 1024;

const mp3Frames = (durationS: number): number => Math.max(1, Math.ceil(durationS / MP3_FRAME_S - 1e-9));
const pcmSamples = (durationS: number): number => Math.round(durationS * PCM_RATE);

/**
 * The recorder stores Opus at 16 kHz in 20 ms frames of exactly 80 bytes per channel (32
 * kbit/s a channel; the SDK's Ogg writer refuses other sizes). A file's `size` is that, and
 * the Android bridges turn it back into a length (`BleFile.calculateOpusDuration(size,
 * channels)`: 20 ms per 80 bytes per channel), so sizes must be Opus sizes, whatever the
 * export format (device-sdk-notes.md).
 */
const OPUS_FRAME_BYTES = 80;
const OPUS_FRAME_MS = 20;

/** Bytes of a recording this long on the device: whole frames, none past the end. */
export const opusSize = (durationS: number, channels = 1): number =>
  Math.max(0, Math.floor((durationS * 1000) / OPUS_FRAME_MS + 1e-9)) * OPUS_FRAME_BYTES * channels;

/** The Android SDK's arithmetic back from a size: milliseconds, whole frames. */
export const opusDurationMs = (size: number, channels: number): number =>
  Math.floor(size / (OPUS_FRAME_BYTES * Math.max(1, channels))) * OPUS_FRAME_MS;

function wavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(PCM_RATE, 24);
  h.writeUInt32LE(PCM_RATE * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** `total` bytes of `unit` repeated, in chunks, never held whole (an hour of wav is 115 MB). */
function repeated(head: Buffer, unit: Buffer, count: number): Readable {
  const perChunk = Math.max(1, Math.floor(CHUNK / unit.length));
  const block = Buffer.concat(Array.from({ length: perChunk }, () => unit));
  return Readable.from(
    (function* () {
      if (head.length) yield head;
      for (let left = count; left > 0; left -= perChunk) {
        yield left >= perChunk ? block : block.subarray(0, left * unit.length);
      }
    })(),
  );
}

export interface AudioExport {
  contentType: string;
  size: number;
  body: Readable | Buffer;
}

const TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  pcm: 'application/octet-stream',
};

/** The PCM samples of a 16-bit PCM wav (`data` chunk), or undefined when it is not one. */
function wavSamples(b: Buffer): Buffer | undefined {
  if (b.length < 12 || b.toString('ascii', 0, 4) !== 'RIFF' || b.toString('ascii', 8, 12) !== 'WAVE') return;
  let pcm16 = false;
  for (let at = 12; at + 8 <= b.length; ) {
    const id = b.toString('ascii', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 24 <= b.length)
      pcm16 = b.readUInt16LE(at + 8) === 1 && b.readUInt16LE(at + 22) === 16;
    if (id === 'data') return pcm16 ? b.subarray(at + 8, Math.min(b.length, at + 8 + size)) : undefined;
    at += 8 + size + (size % 2);
  }
  return undefined;
}

/** Formats `rec` can be exported as. */
function formatsOf(rec: RecordingRecord, stored?: Buffer): ExportFormat[] {
  if (rec.source === 'generated') return ['mp3', 'wav', 'pcm'];
  if (rec.format === 'wav') return stored && wavSamples(stored) ? ['wav', 'pcm'] : ['wav'];
  return ['mp3'];
}

/**
 * Export `rec` as `format`: 406 FORMAT_UNAVAILABLE when that cannot be done honestly.
 * `stored` is its real audio (absent for generated recordings).
 */
export function exportAudio(
  rec: RecordingRecord,
  format: ExportFormat,
  channels: number,
  stored?: Buffer,
): AudioExport {
  const own = formatsOf(rec, stored);
  if (channels !== 1 || !own.includes(format)) {
    const what = rec.source === 'generated' ? 'generated silence' : `real ${rec.format} audio`;
    const why = channels !== 1 ? `only 1 channel can be exported; ` : '';
    throw new SimError(
      406,
      'FORMAT_UNAVAILABLE',
      `${why}Recording ${rec.session_id} is ${what}; it can be exported as: ${own.join(', ')}`,
    );
  }
  if (rec.source === 'generated') {
    if (format === 'mp3') {
      const n = mp3Frames(rec.duration_s);
      return {
        contentType: TYPES.mp3!,
        size: n * MP3_FRAME.length,
        body: repeated(Buffer.alloc(0), MP3_FRAME, n),
      };
    }
    const samples = pcmSamples(rec.duration_s);
    const head = format === 'wav' ? wavHeader(samples * 2) : Buffer.alloc(0);
    return {
      contentType: TYPES[format]!,
      size: head.length + samples * 2,
      body: repeated(head, Buffer.alloc(2), samples),
    };
  }
  const bytes = format === 'pcm' ? wavSamples(stored!)! : stored!;
  return { contentType: TYPES[format]!, size: bytes.length, body: bytes };
}
