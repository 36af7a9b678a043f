import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AudioInfo } from './model.js';
import { hasAdtsFrames, hasMpegFrames, readHead } from './mpegFrames.js';

/** What the probe needs of a stored file: its type, size, and a way to read it. */
export interface AudioSource {
  filetype: string;
  size: number;
  open(): Readable;
  /** Absolute path when the bytes are on disk (parsing a file can seek; a stream cannot). */
  path?: string;
}

/** Parser hints by file type (music-metadata picks its parser by MIME type): not the types
 * storage serves files as — an `opus` file is an Ogg container, so it is parsed as one. */
const MIME: Record<string, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  mp4: 'audio/mp4',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  flac: 'audio/flac',
  webm: 'audio/webm',
  amr: 'audio/amr',
};

const undecodable = (why: string): AudioInfo => ({
  ok: false,
  message: `The audio file could not be decoded: ${why}`,
});

/**
 * A parser's message, fit for the app that uploaded the file: its first line, with anything
 * that looks like a file system path (the blob's place on this server) replaced by words the
 * app's developer can read (a placeholder such as `[path]` read like a bug).
 */
export const publicReason = (message: string): string =>
  message
    .split('\n')[0]!
    .replace(/'?(?:[A-Za-z]:)?(?:[\\/][^\s'"\\/:,;)]+){2,}[\\/]?'?/g, 'the stored audio file')
    .slice(0, 200);

/**
 * Read the real duration of an audio file with music-metadata (WAV, MP3, M4A/AAC, OGG/Opus,
 * FLAC, WebM…). The library is imported on first use so start-up does not pay for it
 * (~80 ms). Anything it cannot decode, or that has no audible length, is "not audio"; so is
 * "MPEG" or "ADTS" in which music-metadata synced on a few stray bit patterns but no real
 * chain of frames starts (random bytes named .mp3, even behind one real frame header).
 */
export async function probeAudio(src: AudioSource): Promise<AudioInfo> {
  const { parseFile, parseStream } = await import('music-metadata');
  const ext = src.filetype.toLowerCase().replace(/^\./, '');
  let stream: Readable | undefined;
  try {
    let meta: Awaited<ReturnType<typeof parseFile>>;
    if (src.path) meta = await parseFile(src.path, { duration: true });
    else {
      stream = src.open();
      meta = await parseStream(stream, { mimeType: MIME[ext], size: src.size }, { duration: true });
    }
    const d = meta.format.duration;
    if (!meta.format.container || d === undefined || !Number.isFinite(d) || d <= 0) {
      return undecodable(`no audio stream found (${ext}).`);
    }
    // Whichever framing the MPEG parser claims (its last header read decides, and in noise that
    // is any stray sync), the bytes must hold a real chain of frames of one of the two.
    const container = meta.format.container;
    if (container === 'MPEG' || container.startsWith('ADTS')) {
      const head = await readHead(src.open());
      if (!hasMpegFrames(head) && !hasAdtsFrames(head))
        return undecodable(`no valid MPEG or ADTS audio frames found (${ext}).`);
    }
    return { ok: true, duration_s: Math.round(d * 1000) / 1000 };
  } catch (e) {
    return undecodable(publicReason((e as Error).message));
  } finally {
    stream?.destroy();
  }
}

/**
 * The documented stand-in for audio the simulator cannot read (a URL elsewhere on the
 * internet — the simulator never fetches it): 20–180 s, fixed by the URL, to the millisecond.
 */
export function fallbackDuration(fileUrl: string): number {
  const n = createHash('sha256').update(fileUrl).digest().readUInt32LE(0);
  return 20 + (n % 160_000) / 1000;
}
